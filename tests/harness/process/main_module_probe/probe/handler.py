"""Says which main module its worker process imported besides its own."""

import sys


def lambda_handler(event, context):
    main = sys.modules.get("__mp_main__")
    return {"campaign_main": getattr(main, "__file__", None)}
