"""Route support tickets to a team: billing words go to billing, outages to on-call,
everything else to the general queue.  The ticket's subject may carry a team tag
("BILLING: card declined")."""

import json
import os

import boto3
from support_text import fingerprint, normalise

table = boto3.resource("dynamodb").Table(os.environ["TRIAGE_TABLE"])

TEAM_WORDS = {
    "billing": ("invoice", "refund", "charge", "card"),
    "oncall": ("down", "outage", "error", "timeout"),
}


def _team(text):
    words = set(normalise(text).split())
    for team, keywords in TEAM_WORDS.items():
        if words.intersection(keywords):
            return team
    return "general"


def handler(event, context):
    routed = []
    for record in event["Records"]:
        sns = record["Sns"]
        try:
            ticket = json.loads(sns["Message"])
        except ValueError:
            ticket = {"body": sns["Message"]}
        if not isinstance(ticket, dict):
            ticket = {"body": json.dumps(ticket)}
        body = str(ticket.get("body", ""))
        team = _team(body)
        subject = sns.get("Subject")
        if subject:
            # tagged subjects ("TEAM: text") override the keyword rules
            tag = subject.split(":", 1)[1].strip()
            team = normalise(tag) or team
        ticket_id = fingerprint(body + (subject or "")) + "-" + sns["MessageId"][:8]
        table.put_item(Item={"ticketId": ticket_id, "team": team})
        routed.append({"ticketId": ticket_id, "team": team})
    return {"routed": routed}
