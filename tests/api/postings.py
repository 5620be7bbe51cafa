"""Hand-written job postings shared by the API and CLI suites.

Every posting is a plain JSON-ready dict as a crawler would send it. The texts are realistic
ads of 80-200 words; what matters for the tests is how they relate:

- `DATA_ENGINEER` and `DATA_ENGINEER_REPOST`: one vacancy re-posted under a retitle "(H/F)",
  another source and another spelling of the employer, with an identical description;
- `ACCOUNT_EXECUTIVE`: another job of the same employer, sharing only the boilerplate
  paragraph about the company (must stay "new");
- `STAFF_NURSE`, `WAREHOUSE_OPERATIVE`, `BARISTA`: unrelated vacancies.
"""

from __future__ import annotations

import random
from typing import Any

ACME_BOILERPLATE = (
    "About Acme: founded in 1998, Acme builds logistics software used by more than four "
    "hundred retailers across Europe. We are an equal opportunity employer and welcome "
    "applications from people of every background, age, gender identity and ability. "
    "Reasonable adjustments are available throughout the recruitment process on request."
)

DATA_ENGINEER_TEXT = (
    "We are looking for a Data Engineer to join our analytics platform team in Lyon. "
    "You will design, build and operate the batch and streaming pipelines that feed our "
    "warehouse, from the ingestion of order events to the curated tables used by pricing "
    "analysts. Day to day you will write Python and SQL, review pull requests, tune Spark "
    "jobs on Kubernetes and improve data quality checks with our analysts.\n\n"
    "What you bring: three years of experience with Python and SQL in production, good "
    "knowledge of Airflow or a similar orchestrator, experience with columnar formats such "
    "as Parquet and a pragmatic approach to testing. French and English are both spoken in "
    "the team.\n\n"
    "What we offer: a permanent contract, hybrid work with two days a week in the office, "
    "a yearly training budget of two thousand euros and twenty-seven days of paid leave.\n\n"
    + ACME_BOILERPLATE
)

ACCOUNT_EXECUTIVE_TEXT = (
    "Acme is hiring an Account Executive to grow our customer base among mid-sized "
    "retailers in the Benelux. You will own the full sales cycle, from the first discovery "
    "call to contract signature, and work closely with our solution consultants to prepare "
    "tailored demonstrations of the platform. You will keep the pipeline in the CRM up to "
    "date and forecast your quarter with the sales director.\n\n"
    "Your profile: at least four years of business to business software sales, a proven "
    "record of closing deals above fifty thousand euros, fluent Dutch and English, and the "
    "willingness to travel to customers two or three days per week. The package includes a "
    "base salary, uncapped commission, a company car and private health insurance.\n\n"
    + ACME_BOILERPLATE
)

STAFF_NURSE_TEXT = (
    "An exciting opportunity has arisen for a registered Staff Nurse to join the acute "
    "medical unit at St Mary's Hospital. The ward cares for up to twenty-eight adult "
    "patients admitted through the emergency department, and you will plan, deliver and "
    "evaluate their care as part of a friendly multidisciplinary team. Applicants must "
    "hold current NMC registration. Newly qualified nurses are encouraged to apply and "
    "will follow a structured preceptorship programme with protected learning time. We "
    "offer flexible rostering, access to the NHS pension scheme, free parking on site and "
    "support with continuing professional development, including funded modules at the "
    "local university."
)

WAREHOUSE_OPERATIVE_TEXT = (
    "Northgate Distribution is recruiting warehouse operatives for its chilled food depot "
    "near Daventry. Shifts run four on, four off, from six in the morning to six in the "
    "evening, with a night shift premium of two pounds per hour. Duties include picking "
    "customer orders with a voice picking headset, loading trailers, checking "
    "temperatures and keeping the aisles clean and safe. No experience is needed because "
    "full training is given, including a counterbalance forklift licence after "
    "probation. You must be able to lift up to twenty kilos and work in temperatures of "
    "around three degrees; thermal clothing and safety boots are provided. Weekly pay, a "
    "staff shop discount and a free shuttle bus from the town centre are included."
)

BARISTA_TEXT = (
    "Little Bean Coffee is looking for a cheerful barista for our new café on the harbour "
    "front in Brighton. You will prepare espresso drinks and filter coffee, serve pastries "
    "baked on site every morning, handle the till and keep the counter spotless during "
    "busy weekends. Previous barista experience is a plus but not required: our head "
    "roaster runs a two week training on grinding, extraction and milk texturing for every "
    "new starter. We offer twenty to thirty hours a week, tips shared equally between the "
    "team, free drinks on shift and a monthly cupping session with our suppliers. Weekend "
    "availability is essential."
)

DATA_ENGINEER: dict[str, Any] = {
    "id": "indeed-1001",
    "title": "Data Engineer",
    "company": "Acme Ltd",
    "location": "Lyon",
    "source": "indeed",
    "url": "https://example.com/jobs/indeed-1001",
    "posted_at": "2024-03-01T09:00:00Z",
    "description": DATA_ENGINEER_TEXT,
}

DATA_ENGINEER_REPOST: dict[str, Any] = {
    "id": "linkedin-77",
    "title": "Data Engineer (H/F)",
    "company": "ACME",
    "location": "Lyon",
    "source": "linkedin",
    "posted_at": "2024-03-04T14:30:00Z",
    "description": DATA_ENGINEER_TEXT,
}

ACCOUNT_EXECUTIVE: dict[str, Any] = {
    "id": "indeed-1002",
    "title": "Account Executive Benelux",
    "company": "Acme Ltd",
    "location": "Amsterdam",
    "source": "indeed",
    "posted_at": "2024-03-02T10:00:00Z",
    "description": ACCOUNT_EXECUTIVE_TEXT,
}

STAFF_NURSE: dict[str, Any] = {
    "id": "nhs-5501",
    "title": "Staff Nurse - Acute Medical Unit",
    "company": "St Mary's NHS Foundation Trust",
    "location": "London",
    "source": "nhsjobs",
    "posted_at": "2024-02-20",
    "description": STAFF_NURSE_TEXT,
}

WAREHOUSE_OPERATIVE: dict[str, Any] = {
    "id": "reed-3003",
    "title": "Warehouse Operative - Chilled",
    "company": "Northgate Distribution Ltd",
    "location": "Daventry",
    "source": "reed",
    "posted_at": "2024-03-05T08:00:00Z",
    "description": WAREHOUSE_OPERATIVE_TEXT,
}

BARISTA: dict[str, Any] = {
    "id": "reed-3004",
    "title": "Barista",
    "company": "Little Bean Coffee",
    "location": "Brighton",
    "source": "reed",
    "posted_at": "2024-03-06T07:30:00Z",
    "description": BARISTA_TEXT,
}

UNRELATED = [STAFF_NURSE, WAREHOUSE_OPERATIVE, BARISTA]


def posting(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of `base` with some fields replaced (None removes the field)."""
    out = dict(base)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


_VOCABULARY_TEXT = (
    "accounts adviser agency analyst annual apprentice assistant audit bakery benefits bonus "
    "branch budget builder campus carer catering chef civil claims cleaner client clinic coach "
    "compliance construction contractor counsellor courier customer dental depot designer "
    "developer dispatch driver editor electrician engineer estates events facilities farm "
    "finance fitter florist garden graphic grocery guard harbour health hotel housing "
    "inspector installer insurance joiner kitchen laboratory landscape lawyer lecturer legal "
    "librarian logistics machinist maintenance manager marketing mechanic midwife museum "
    "nursery officer operator painter paralegal payroll pharmacy physio planner plumber "
    "porter printer procurement producer quality reception recruiter research retail "
    "roofer safety school security solicitor steward stock supervisor surveyor tailor "
    "teacher technician therapist trainer translator tutor underwriter valuer veterinary "
    "waiter welder writer youth zoo"
)
_VOCABULARY = _VOCABULARY_TEXT.split()


def generated_text(seed: int, words: int = 120) -> str:
    """A deterministic pseudo-ad of `words` words; two seeds give unrelated texts."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_VOCABULARY) for _ in range(words))


def near_duplicate_pair(n: int, seed: int = 100) -> tuple[dict[str, Any], dict[str, Any]]:
    """An ad and its re-post on another site: the same words, the re-post as HTML with an
    entity, retitled "(H/F)" and with the company's legal form added."""
    text = generated_text(seed=seed + n, words=120)
    original = {
        "id": f"site-a-{n}",
        "title": f"Role {n}",
        "company": f"Employer {n}",
        "posted_at": "2024-05-01T09:00:00Z",
        "description": text,
    }
    words = text.split()
    html = f"<p>{' '.join(words[:60])}</p><ul><li>{' '.join(words[60:])}</li></ul>&nbsp;"
    repost = {
        "id": f"site-b-{n}",
        "title": f"Role {n} (H/F)",
        "company": f"Employer {n} Ltd",
        "posted_at": "2024-05-01T09:00:00Z",
        "description": html,
    }
    return original, repost
