print("shelfd")
