"""Request bodies of the quote API."""

from typing import Literal

from pydantic import BaseModel, Field


class QuoteLine(BaseModel):
    sku: str = Field(pattern=r"^[A-Z]{2}[0-9]{3}$")
    quantity: int = Field(ge=1, le=99)


class QuoteRequest(BaseModel):
    region: Literal["eu", "us", "apac"]
    lines: list[QuoteLine] = Field(min_length=1, max_length=8)
    express: bool = False
