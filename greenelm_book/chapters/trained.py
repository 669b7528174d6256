"""Models trained once per configuration and seed, with what the entropy and rotation chapters read.

Both chapters study the same trained models — Green-ELM (``ELMClassifier``) and the SGD baselines
of :mod:`greenelm_book.chapters.baselines` — the entropy chapter their weights, the rotation chapter their
accuracy on rotated test images. :func:`elm_run` and :func:`sgd_run` train one model, keep its
weights, and evaluate it on the test images rotated by every angle of :data:`ANGLES` (angle 0 is
the unrotated test set itself); each is cached with
:func:`greenelm_book.store.results_cache.memoize`, so a model is trained once for both chapters and a
re-execution reads it.

:func:`owned_result` reads a configuration that another chapter owns (the clean accuracy of a
Green-ELM from ``random_features``, of an SGD baseline from ``baselines``) when that chapter's
result exists and was measured in the same setting; the chapters show it instead of recording the
configuration a second time.
"""

from __future__ import annotations

import functools

import numpy as np

from greenelm._validation import check_choice, check_positive_int

from ..store.results_cache import memoize

#: the rotation angles (degrees) every model is evaluated at; 0 is the unrotated test set
ANGLES = tuple(range(0, 46, 5))
SOLVERS = ("pinv", "cholesky", "lu")


@functools.lru_cache(maxsize=2)
def _dataset(dataset: str, subset: int | None):
    from greenelm.data import load_dataset

    return load_dataset(dataset, subset=subset)


@functools.lru_cache(maxsize=2)
def _split(dataset: str, subset: int | None):
    """(X_train (N, D), y_train, {angle: X_test rotated (n, D)}, y_test), float64 rows in [0, 1]."""
    from .perturb import rotate

    ds = _dataset(dataset, subset)
    rotated = {angle: (ds.flat("test") if angle == 0 else rotate(ds.x_test, angle)) for angle in ANGLES}
    return ds.flat("train"), ds.y_train, rotated, ds.y_test


def _rotated_accuracy(predict, dataset: str, subset: int | None) -> np.ndarray:
    """Accuracy (%) of ``predict`` at every angle of :data:`ANGLES` → (len(ANGLES),)."""
    _, _, rotated, y_test = _split(dataset, subset)
    return np.array([100 * float(np.mean(predict(rotated[a]) == y_test)) for a in ANGLES])


def _check_subset(subset):
    return None if subset is None else check_positive_int("subset", subset)


def elm_run(dataset: str, n_hidden: int, seed: int, solver: str = "cholesky", alpha: float = 1e-3,
            weight_scale: str = "unit", subset: int | None = None) -> dict:
    """One Green-ELM, trained on the upright training images and kept (cached).

    Returns ``{"readout": W2 (n_hidden, k), "angles": (A,), "accuracy": (A,) test accuracy (%) at
    each angle of ANGLES, "n_train", "n_test"}``. ``solver="pinv"`` is the minimum-norm solution
    (``alpha`` is then irrelevant and recorded as 0).
    """
    check_choice("solver", solver, SOLVERS)
    check_choice("weight_scale", weight_scale, ("unit", "he"))
    n_hidden, subset = check_positive_int("n_hidden", n_hidden), _check_subset(subset)
    alpha = 0.0 if solver == "pinv" else float(alpha)
    if solver != "pinv" and not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a positive number for solver {solver!r}, got {alpha!r}")

    def compute():
        from greenelm.estimator import ELMClassifier

        X, y, _, y_test = _split(dataset, subset)
        model = ELMClassifier(n_hidden=n_hidden, solver=solver, alpha=alpha if alpha else 1e-3,
                              weight_scale=weight_scale, random_state=int(seed)).fit(X, y)
        return {"readout": np.array(model.coef_, dtype=np.float64), "angles": np.array(ANGLES, dtype=float),
                "accuracy": _rotated_accuracy(model.predict, dataset, subset),
                "n_train": int(len(y)), "n_test": int(len(y_test))}

    params = {"dataset": dataset, "subset": subset, "n_hidden": n_hidden, "seed": int(seed), "solver": solver,
              "alpha": alpha, "weight_scale": weight_scale, "angles": list(ANGLES)}
    return memoize("trained-elm", params, compute, )[0]


def sgd_run(dataset: str, model: str, seed: int, epochs: int = 10, subset: int | None = None) -> dict:
    """One SGD baseline (``"mlp"`` 784-64-10 or ``"perceptron"`` 784-10), trained as the baselines
    chapter trains it (:func:`greenelm_book.chapters.baselines.train`, default :class:`SGDConfig` but
    ``epochs``), kept (cached).

    Returns ``{"weights": {layer: (n_in, n_out)}, "angles", "accuracy": (A,) %, "train_seconds",
    "n_train", "n_test"}``; the layers are named as in the torch model (``"0"``, ``"2"`` for the
    MLP, ``""`` for the perceptron).
    """
    from .baselines import SGDConfig, train

    check_choice("model", model, ("mlp", "perceptron"))
    epochs, subset = check_positive_int("epochs", epochs), _check_subset(subset)

    def compute():
        from .weight_statistics import linear_weights

        X, y, _, y_test = _split(dataset, subset)
        run = train(model, X, y, int(seed), SGDConfig(epochs=epochs))
        return {"weights": linear_weights(run.model), "angles": np.array(ANGLES, dtype=float),
                "accuracy": _rotated_accuracy(run.predict, dataset, subset),
                "train_seconds": float(run.train_seconds), "n_train": int(len(y)), "n_test": int(len(y_test))}

    params = {"dataset": dataset, "subset": subset, "model": model, "seed": int(seed), "epochs": epochs,
              "angles": list(ANGLES)}
    return memoize("trained-sgd", params, compute, )[0]


def at_angle(run: dict, angle: float) -> float:
    """A run's accuracy (%) at ``angle`` (one of :data:`ANGLES`)."""
    matches = np.flatnonzero(np.isclose(run["angles"], float(angle)))
    if not len(matches):
        raise ValueError(f"angle {angle!r} is not one of the evaluated angles {ANGLES}")
    return float(run["accuracy"][matches[0]])


def owned_result(store, owner: str, key: str, ours=None, **expected):
    """``(result, why)``: the ``owner`` chapter's result ``key`` when it exists, its setting agrees
    with ``expected`` on every field both give and (when ``ours``, one value per run, is given) its
    values equal ours to 1e-6; else ``(None, reason)``.

    ``store``: a :class:`greenelm_book.store.results.ChapterResults`. The chapters show the owner's
    result, or — when it is absent or measured in another setting — their own run of the same
    model, saying so, without recording it.
    """
    try:
        result = store.get(owner, key)
    except KeyError:
        return None, f"the {owner} chapter's result {key} is not in this results directory"
    differing = {f: (result.setting[f], v) for f, v in expected.items()
                 if f in result.setting and result.setting[f] != v}
    if differing:
        return None, (f"the {owner} chapter's {key} has another setting ("
                      + ", ".join(f"{f} {theirs!r} there, {ours!r} here" for f, (theirs, ours) in differing.items())
                      + ")")
    if ours is not None and (len(ours) != result.n or not np.allclose(ours, result.values, rtol=0, atol=1e-6)):
        return None, (f"the {owner} chapter's {key} ({result.text()}) differs from this chapter's run of the "
                      f"same setting")
    return result, ""


def fallback_note(reasons) -> str:
    """One sentence for a page: why the owners' results named in ``reasons`` ({key: why} from
    :func:`owned_result`, empty whys ignored) were not used; "" when all were."""
    reasons = {key: why for key, why in reasons.items() if why}
    if not reasons:
        return ""
    absent = sorted(key for key, why in reasons.items() if why.endswith("is not in this results directory"))
    other = [why for key, why in sorted(reasons.items()) if key not in absent]
    parts = ([f"not in this results directory ({', '.join(absent)})"] if absent else []) + other
    return ("Where a row says \"this chapter\", the owning chapter's result was not used and this "
            "chapter's own run of the same models is shown instead (not recorded a second time): "
            + "; ".join(parts) + ".")
