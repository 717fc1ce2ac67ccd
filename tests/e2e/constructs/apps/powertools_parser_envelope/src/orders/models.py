"""The order messages the shop's checkout service puts on the queue."""

from typing import Literal

from pydantic import BaseModel, Field


class Customer(BaseModel):
    customer_id: str = Field(pattern=r"^C[0-9]{6}$")
    tier: Literal["basic", "gold", "platinum"]


class LineItem(BaseModel):
    sku: str = Field(pattern=r"^[A-Z]{3}-[0-9]{4}$")
    quantity: int = Field(ge=1, le=50)
    unit_price_cents: int = Field(ge=1, le=100_000)


class Order(BaseModel):
    order_id: str = Field(min_length=8, max_length=36)
    customer: Customer
    items: list[LineItem] = Field(min_length=1, max_length=10)
    shipping: Literal["standard", "express"] = "standard"
    coupon: str | None = Field(default=None, pattern=r"^[A-Z]{4}[0-9]{2}$")
