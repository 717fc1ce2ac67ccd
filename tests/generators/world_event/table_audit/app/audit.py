import boto3

DYNAMODB = boto3.client("dynamodb")


def handler(event, context):
    detail = event["detail"]
    name = detail["requestParameters"]["tableName"]
    try:
        table = DYNAMODB.describe_table(TableName=name)["Table"]
    except DYNAMODB.exceptions.ResourceNotFoundException:
        return {"table": name, "audited": False}
    streaming = table["StreamSpecification"]["StreamEnabled"]
    return {"table": name, "audited": True, "streaming": streaming}
