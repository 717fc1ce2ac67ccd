"""The template fixtures' loader: found by topic and name from any test folder, `.yaml`
unless named otherwise, placeholders filled only when a test gives fields."""

from __future__ import annotations

import pytest

from tests.fixtures.sam import SAM_FIXTURES, template_path, template_text


def test_a_fixture_is_its_topic_and_name_yaml_unless_the_name_has_a_suffix():
    assert template_path("sam", "conditions") == SAM_FIXTURES / "sam" / "conditions.yaml"
    json_path = template_path("sam", "plain_cloudformation_event_source_mapping.json")
    assert json_path.suffix == ".json" and json_path.is_file()


def test_a_missing_fixture_says_which_file_was_looked_for():
    with pytest.raises(FileNotFoundError, match=r"no template fixture sam/nowhere\.yaml"):
        template_path("sam", "nowhere")


def test_placeholders_are_filled_only_when_fields_are_given():
    raw = template_text("api_routes", "api_event_properties")
    assert "Properties: $event}" in raw
    filled = template_text("api_routes", "api_event_properties", event="{Path: /a, Method: get}")
    assert "Properties: {Path: /a, Method: get}}" in filled and "$event" not in filled
    # a template without fields is read as it is: its `${...}` are CloudFormation's
    assert "${AWS::Region}" in template_text("api_routes", "openapi_definition_body")


def test_a_placeholder_left_unfilled_is_an_error_not_a_template():
    with pytest.raises(KeyError, match="properties"):
        template_text("batch_setting", "batch_event", event_type="SQS")
