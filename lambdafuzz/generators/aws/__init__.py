"""AWS worlds and events: S3 objects, DynamoDB items, SQS messages, the trigger's event.

`world_generator.generate_input(choices, target)` is the entry point; `events.render_event`
turns its `EventPlan` into the event dict once a backend has loaded the world.  Nothing
here imports boto3, moto or the harness (generation is pure).
"""
