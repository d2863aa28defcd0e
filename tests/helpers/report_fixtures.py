"""A small campaign summary, shaped like the pipeline's summary.json, for report tests."""

from __future__ import annotations

from typing import Any


def fake_report(run: str, subset: str, scenario: str, f: float, simulated: bool) -> dict[str, Any]:
    counts = {
        "correcto": 50,
        "parcialmente_correcto": 10,
        "incorrecto": 5,
        "em_falta": 20,
        "espurio": 3,
        "sobre_especificado": 2,
        "parcialmente_sobre_especificado": 1,
    }
    field = {
        "precisao": f,
        "abrangencia": f - 0.2,
        "medida_f": f - 0.1,
        "counts": counts,
        "ci95": {"precisao": [f - 0.01, f + 0.01], "abrangencia": None, "medida_f": None},
    }
    short = scenario[:3]

    def ida(alt: str, class_f: float, id_f: float) -> dict[str, Any]:
        """An Ida report's JSON: both blocks, an interval on the classification F."""
        return {
            "signature": f"harem:x|run:{run}|subset:{subset}|scenario:{short}|alt:{alt}",
            "identificacao": {"precisao": 1.0, "abrangencia": id_f, "medida_f": id_f},
            "classificacao": {"precisao": class_f, "abrangencia": class_f, "medida_f": class_f},
            "ci95": {"classificacao": {"medida_f": [class_f - 0.01, class_f + 0.01]}},
            "por_categoria": {
                "PESSOA": {
                    "identificacao": {"precisao": 1.0, "abrangencia": id_f, "medida_f": id_f},
                    "classificacao": {"precisao": 0.5, "abrangencia": 0.5, "medida_f": 0.5},
                }
            },
        }

    relative = scenario == "relative"
    # The relative Ida's identification is not a proportion: 1.0131 as in the default campaign.
    return {
        "run": run,
        "subset": subset,
        "scenario": scenario,
        "simulated": simulated,
        "classification": ida(
            "strict", f - 0.15 + (0.05 if relative else 0), 1.0131 if relative else f
        ),
        "relaxed": None if relative else ida("relaxed", f - 0.14, f),
        "identification": {
            "precisao": f,
            "abrangencia": f - 0.1,
            "medida_f": f - 0.05,
            "signature": f"harem:x|run:{run}|subset:{subset}",
            "ci95": {"precisao": [f - 0.02, f + 0.02], "abrangencia": None, "medida_f": None},
            "measures": {
                "labelled": {
                    "exact": {"precision": 0.5, "recall": 0.5, "f1": 0.5},
                    "overlap": {"precision": 0.8, "recall": 0.8, "f1": 0.8},
                    "intersection": {"precision": None, "recall": None, "f1": None},
                }
            },
        },
        "morphology": {
            "signature": f"harem:x|run:{run}|subset:{subset}|scenario:{scenario[:3]}",
            "fields": {"genero": field, "numero": field, "combinada": field},
        },
    }


def fake_summary() -> dict[str, Any]:
    reports = [
        fake_report(run, subset, scenario, f, simulated=run != "real")
        for run, f in (("sim-strong", 0.9), ("sim-weak", 0.5), ("real", 0.7))
        for subset in ("total", "pt")
        for scenario in ("absolute", "relative")
    ]
    reports[-1]["morphology"] = None  # a run with no morphology report
    return {"campaign": {"collection": "ColeccaoDouradaHAREM.txt"}, "reports": reports}
