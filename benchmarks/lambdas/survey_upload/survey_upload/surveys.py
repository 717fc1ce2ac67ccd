"""The three survey types the app uploads, and the strict JSON binding they share.

A survey document may hold only the properties of its type; every value is stored as a
string (numbers and booleans as their JSON text) or null, and `userName` is required.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self


class SurveyError(ValueError):
    """The document does not bind to the survey type named by the object key."""


def prop(json_name: str) -> Any:
    """An optional survey property, stored under `json_name` in the document."""
    return field(default=None, metadata={"json": json_name})


@dataclass(slots=True, frozen=True)
class Survey:
    """Properties every survey type has."""

    kind: ClassVar[str] = "Survey"

    user_name: str = field(metadata={"json": "userName"})
    date: str | None = prop("date")
    survey_type: str | None = prop("surveyType")

    @classmethod
    def from_json(cls, document: Any) -> Self:
        if not isinstance(document, dict):
            raise SurveyError(
                f"a {cls.kind} survey must be a JSON object, not {type(document).__name__}"
            )
        by_json_name = {f.metadata["json"]: f.name for f in fields(cls)}
        unknown = sorted(set(document) - set(by_json_name))
        if unknown:
            raise SurveyError(f"unknown {cls.kind} survey properties {unknown}")
        if document.get("userName") is None:
            raise SurveyError(f"a {cls.kind} survey needs a userName")
        values = {by_json_name[name]: as_text(name, value) for name, value in document.items()}
        return cls(**values)

    def attributes(self) -> dict[str, str | None]:
        """DynamoDB attribute name (the property name capitalised) -> value."""
        return {attribute_name(f.metadata["json"]): getattr(self, f.name) for f in fields(self)}


def as_text(name: str, value: Any) -> str | None:
    """Bind a JSON scalar to a string property; objects and arrays do not fit one."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        raise SurveyError(f"property {name!r} must be a scalar, not {type(value).__name__}")
    return json.dumps(value)


def attribute_name(json_name: str) -> str:
    return json_name[:1].upper() + json_name[1:]


@dataclass(slots=True, frozen=True)
class DailySurvey(Survey):
    kind: ClassVar[str] = "Daily"

    experience_bleeding_step_id: str | None = prop("experienceBleedingStepID")
    clear_blue_monitor_step_id: str | None = prop("clearBlueMonitorStepID")
    progesterone_step_id: str | None = prop("progesteroneStepID")
    num_of_times_baby_breast_fed_step_id: str | None = prop("numOfTimesBabyBreastFedStepID")
    num_of_times_baby_bottle_fed_step_id: str | None = prop("numOfTimesBabyBottleFedStepID")
    num_of_times_baby_formula_fed_step_id: str | None = prop("numOfTimesBabyFormulaFedStepID")
    baby_wet_diapers_step_id: str | None = prop("babyWetDiapersStepID")


@dataclass(slots=True, frozen=True)
class WeeklySurvey(Survey):
    kind: ClassVar[str] = "Weekly"

    baby_weight_step_id: str | None = prop("babyWeightStepID")
    mother_weight_step_id: str | None = prop("motherWeightStepID")
    breastfeeding_confidence_step_id: str | None = prop("breastfeedingConfidenceStepID")
    supplement_use_step_id: str | None = prop("supplementUseStepID")
    sleep_hours_step_id: str | None = prop("sleepHoursStepID")


@dataclass(slots=True, frozen=True)
class OnboardingSurvey(Survey):
    kind: ClassVar[str] = "Onboarding"

    baby_birth_date: str | None = prop("babyBirthDate")
    baby_birth_weight: str | None = prop("babyBirthWeight")
    delivery_type: str | None = prop("deliveryType")
    gestational_age: str | None = prop("gestationalAge")
    mother_age: str | None = prop("motherAge")
    parity: str | None = prop("parity")
    previous_breastfeeding_experience: str | None = prop("previousBreastfeedingExperience")
    planned_breastfeeding_duration: str | None = prop("plannedBreastfeedingDuration")
    education_level: str | None = prop("educationLevel")
    employment_status: str | None = prop("employmentStatus")
    return_to_work_date: str | None = prop("returnToWorkDate")
    marital_status: str | None = prop("maritalStatus")
    ethnicity: str | None = prop("ethnicity")
    zip_code: str | None = prop("zipCode")
    insurance_type: str | None = prop("insuranceType")
    lactation_consultant_visit: str | None = prop("lactationConsultantVisit")
    pump_ownership: str | None = prop("pumpOwnership")
    smoking_status: str | None = prop("smokingStatus")
    medication_use: str | None = prop("medicationUse")
    breast_surgery_history: str | None = prop("breastSurgeryHistory")
    baby_nicu_stay: str | None = prop("babyNICUStay")
    partner_support: str | None = prop("partnerSupport")
