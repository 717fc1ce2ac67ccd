"""What a handler can reach and what it leaves behind: the guard against the network and
real AWS, the worker's isolation (namespaces, private files, a clean environment), process
groups and the janitor that outlives a killed campaign."""
