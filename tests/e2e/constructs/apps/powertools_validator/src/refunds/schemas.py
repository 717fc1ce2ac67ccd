"""The refund request the payments workflow sends (JSON Schema, draft 7)."""

REFUND_REQUEST = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["refund_id", "payment_id", "amount", "currency", "reason"],
    "properties": {
        "refund_id": {"type": "string", "pattern": "^rf_[a-z0-9]{12}$"},
        "payment_id": {"type": "string", "minLength": 6, "maxLength": 40},
        "amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 10000},
        "currency": {"type": "string", "enum": ["EUR", "USD", "GBP", "JPY"]},
        "reason": {"type": "string", "enum": ["duplicate", "fraudulent", "requested_by_customer"]},
        "notify_customer": {"type": "boolean"},
        "lines": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "required": ["sku", "amount"],
                "properties": {
                    "sku": {"type": "string", "minLength": 1},
                    "amount": {"type": "number", "minimum": 0},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
