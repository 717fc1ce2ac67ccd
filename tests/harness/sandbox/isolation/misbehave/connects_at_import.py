"""A module whose import connects to the internet and does not catch the refusal."""

import socket

socket.create_connection(("8.8.8.8", 443), timeout=2)


def handler(event, context):
    return "never imported"
