"""A module whose import tries the internet, swallows the refusal and goes on."""

import socket

try:
    socket.create_connection(("8.8.8.8", 443), timeout=2)
    ONLINE = True
except Exception:  # noqa: BLE001 - the point
    ONLINE = False


def handler(event, context):
    return {"online_at_import": ONLINE}
