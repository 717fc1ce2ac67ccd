def handler(event, context):
    return None
