// The `ember` command. The shell itself arrives with the REPL work (EmberShell); until then
// this entry point says so plainly instead of pretending.
print("ember: the shell is not built yet; EmberCore (the data model) is. Run scripts/test to see it tested.")
