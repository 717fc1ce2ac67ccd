"""Product lookups and shipping quotes."""

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.utilities.parser import parse

from shop.models import QuoteRequest

app = APIGatewayRestResolver()

CATALOG = {
    "AB100": {"name": "Desk lamp", "price_cents": 3_900, "weight_g": 1_200},
    "AB200": {"name": "Cable set", "price_cents": 1_500, "weight_g": 300},
    "CD300": {"name": "Monitor arm", "price_cents": 8_900, "weight_g": 4_100},
}
DEFAULT_WEIGHT_G = 500
# planted bug: APAC shipping was opened in the model but its transit times were never added
SHIPPING_DAYS = {"eu": 3, "us": 5}


@app.get("/health")
def health():
    return {"ok": True}


@app.get("/products/<sku>")
def get_product(sku: str):
    product = CATALOG.get(sku)
    if product is None:
        raise NotFoundError(f"no product {sku}")
    return {"sku": sku, **product}


@app.post("/quotes")
def create_quote():
    request = parse(event=app.current_event.decoded_body or "", model=QuoteRequest)
    weight = sum(
        CATALOG.get(line.sku, {}).get("weight_g", DEFAULT_WEIGHT_G) * line.quantity
        for line in request.lines
    )
    days = SHIPPING_DAYS[request.region]
    return {"weight_g": weight, "days": max(1, days - 2) if request.express else days}


def handler(event, context):
    return app.resolve(event, context)
