"""Unpack uploaded bundles into the bucket, member by member."""
