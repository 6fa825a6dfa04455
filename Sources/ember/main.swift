print("ember: the shell is not built yet")
