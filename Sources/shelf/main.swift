print("shelf")
