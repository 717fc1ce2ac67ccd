"""Queue a welcome email for each new account awaiting confirmation.

The stream filter delivers only INSERT records whose NewImage has status PENDING and an
email attribute, so the image and both attributes are read directly.
"""

PERSONAL_DOMAINS = {"gmail.com", "outlook.com", "yahoo.com"}


def welcome_message(account_id: str, email: str) -> dict:
    # planted bug: an address without "@" has no domain part
    domain = email.split("@")[1].lower()
    template = "welcome-personal" if domain in PERSONAL_DOMAINS else "welcome-business"
    return {"account": account_id, "to": email, "template": template}


def handler(event, context):
    messages = []
    for record in event["Records"]:
        assert record["eventName"] == "INSERT"
        image = record["dynamodb"]["NewImage"]
        assert image["status"]["S"] == "PENDING"
        account_id = record["dynamodb"]["Keys"]["accountId"]["S"]
        messages.append(welcome_message(account_id, image["email"]["S"]))
    return {"queued": messages}
