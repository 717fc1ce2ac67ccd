"""Plain data that crosses every boundary: the target, the world, the outcome of a test.

Nothing here imports pydantic, YAML, boto3 or moto, so workers and generators can depend
on the facts without paying for how they were read.
"""
