"""Crafted worlds for the stock_loader benchmark: one test per decision-point arm."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

BUCKET = "stock-history"
TABLE = "StockPrice"
HEADER = "Date,Open,High,Low,Close,Adj Close,Volume\n"
JAN_2_2020 = 1577923200  # 2020-01-02T00:00:00Z


@pytest.fixture
def handler(aws, load_handler):
    aws.s3.create_bucket(Bucket=BUCKET)
    aws.create_table(TABLE, ("Tick", "S"), ("cdate", "N"))
    return load_handler("stock_loader.handler")


def put_csv(aws, key: str, text: str) -> None:
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=text.encode())


def rows(count: int) -> str:
    """`count` distinct days of prices, January 2020 onward."""
    return "".join(
        f"01/{day:02d}/2020,1.5,2.25,1.0,2.0,1.9,{1000 + day}\n" for day in range(1, count + 1)
    )


def items(aws) -> list[dict]:
    return aws.dynamodb.scan(TableName=TABLE)["Items"]


def test_rows_become_items_keyed_by_tick_and_date(aws, handler, s3_event):
    put_csv(aws, "AAPL.csv", HEADER + "01/02/2020,'74.06',75.15,73.80,75.09,74.21,135480400\n")

    assert handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None) == "SUCCESS"

    [item] = items(aws)
    assert item["Tick"] == {"S": "AAPL"}
    assert item["cdate"] == {"N": str(JAN_2_2020)}
    assert Decimal(item["Open"]["N"]) == Decimal("74.06")
    assert Decimal(item["Volume"]["N"]) == 135480400


def test_single_quotes_protect_commas(aws, handler, s3_event):
    # Without quotechar="'" the quotes would stay in the date: a bad date, nothing written.
    put_csv(aws, "IBM.csv", HEADER + "'01/02/2020',1,2,3,4,5,6\n")

    assert handler.lambda_handler(s3_event(BUCKET, "IBM.csv"), None) == "SUCCESS"
    assert len(items(aws)) == 1


def test_carriage_return_line_ends_are_rows(aws, handler, s3_event):
    # The file is read with newline="", so a bare "\r" ends a row instead of raising csv.Error.
    put_csv(aws, "OLD.csv", HEADER.replace("\n", "\r") + rows(2).replace("\n", "\r"))

    assert handler.lambda_handler(s3_event(BUCKET, "OLD.csv"), None) == "SUCCESS"
    assert len(items(aws)) == 2


def test_tick_drops_only_the_last_extension(aws, handler, s3_event):
    put_csv(aws, "prices/BRK.B.csv", HEADER + rows(1))

    handler.lambda_handler(s3_event(BUCKET, "prices/BRK.B.csv"), None)
    assert items(aws)[0]["Tick"] == {"S": "prices/BRK.B"}


def test_key_without_dot_raises(aws, handler, s3_event):
    put_csv(aws, "AAPL", HEADER + rows(1))

    with pytest.raises(ValueError, match="substring not found"):
        handler.lambda_handler(s3_event(BUCKET, "AAPL"), None)


@pytest.mark.parametrize("text", ["", HEADER])
def test_no_data_rows_writes_nothing(aws, handler, s3_event, text):
    put_csv(aws, "AAPL.csv", text)

    assert handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None) == "SUCCESS"
    assert items(aws) == []


def test_rows_are_written_in_batches_of_25(aws, handler, s3_event, monkeypatch):
    put_csv(aws, "AAPL.csv", HEADER + rows(30))
    batch_sizes = []
    real_write = handler.dynamodb.batch_write_item

    def spy(**kwargs):
        batch_sizes.append(len(kwargs["RequestItems"][TABLE]))
        return real_write(**kwargs)

    monkeypatch.setattr(handler.dynamodb, "batch_write_item", spy)

    assert handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None) == "SUCCESS"
    assert batch_sizes == [25, 5]
    assert len(items(aws)) == 30


def test_unprocessed_items_are_retried(aws, handler, s3_event):
    put_csv(aws, "AAPL.csv", HEADER + rows(2))
    leftover = {
        "PutRequest": {
            "Item": {
                "Tick": {"S": "AAPL"},
                "cdate": {"N": str(JAN_2_2020)},
                "Open": {"N": "1.5"},
            }
        }
    }
    # moto never throttles, so the service's partial answer is stubbed.
    with Stubber(handler.dynamodb.meta.client) as stub:
        stub.add_response("batch_write_item", {"UnprocessedItems": {TABLE: [leftover]}})
        stub.add_response(
            "batch_write_item",
            {"UnprocessedItems": {}},
            {"RequestItems": {TABLE: [leftover]}},
        )
        assert handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None) == "SUCCESS"
        stub.assert_no_pending_responses()


def test_bad_date_returns_success_without_writing(aws, handler, s3_event):
    put_csv(aws, "AAPL.csv", HEADER + rows(3) + "2020-01-05,1,2,3,4,5,6\n")

    assert handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None) == "SUCCESS"
    assert items(aws) == []


def test_too_few_fields_propagates(aws, handler, s3_event):
    put_csv(aws, "AAPL.csv", HEADER + rows(1) + "01/09/2020,1,2,3\n")

    with pytest.raises(IndexError):
        handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None)
    assert items(aws) == []


def test_blank_line_has_no_date_field_and_propagates(aws, handler, s3_event):
    put_csv(aws, "AAPL.csv", HEADER + "\n" + rows(1))

    with pytest.raises(IndexError):
        handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None)


def test_bad_number_propagates(aws, handler, s3_event):
    put_csv(aws, "AAPL.csv", HEADER + "01/02/2020,1,2,n/a,4,5,6\n")

    with pytest.raises(InvalidOperation):
        handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None)


def test_duplicate_rows_in_one_batch_propagate(aws, handler, s3_event):
    put_csv(aws, "AAPL.csv", HEADER + rows(1) + rows(1))

    with pytest.raises(ClientError, match="duplicates"):
        handler.lambda_handler(s3_event(BUCKET, "AAPL.csv"), None)
