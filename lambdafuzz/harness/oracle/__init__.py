"""The deployment oracles' worker side: each AWS call checked against the function's
policy, each delivery's writes recorded, and the second delivery of an event."""
