print("shelf-bench: not written yet")
