def lambda_handler(event, context):
    records = event["Records"]
    body = records[0]["body"]
    if len(records) > 1:
        kind = "batch"
    else:
        kind = "single"
    if body[:1].isdigit():
        kind += "-numeric"
    elif body[:1].isupper():
        kind += "-upper"
    if body.startswith("#v2#"):
        return {"kind": kind}
    raise ValueError("unsupported body")
