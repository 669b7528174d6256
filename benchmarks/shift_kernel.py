"""One-pixel shifts in the stacked limit's kernel, and what they cost: the full average over views
against a symmetrised kernel over relative shifts, on a subset.

Run from the repository root, alone on the machine::

    OMP_WAIT_POLICY=PASSIVE python -m benchmarks.shift_kernel      # MNIST, 10,000 fit and 10,000 validation rows
                                                                    # of the training images, K = 256 pooled 3 x 3
                                                                    # writes benchmarks/reports/shift_kernel.{json,md}
    python -m benchmarks.shift_kernel --subset 500 --validation 200 --n-patches 8 --out /tmp/quick

The stacked limit on MNIST (the arc-cosine kernel, He scale, on standardised patch features) with
each image's four one-pixel shifts averaged into its kernel: averaging over the shifts, as
``greenelm.kernels.averaged_kernel_ridge_predict`` does for the mirror image, costs V² = 25
kernel products for V = 5 views. If the kernel were invariant to shifting both of its inputs,
k(Tₐx, T_b y) = k(x, T_{b−a} y), the average would need one product per relative shift. This
benchmark measures, on the same features, the validation accuracy and the seconds of six kernels:

* ``identity``: k(x, y), one product (the chapter's limit);
* ``average``: (1/25) Σ_{a,b} k(Tₐx, T_b y) over the identity and the four shifts, 25 products;
* ``symmetrised``: (1/9) [k(x, y) + Σ_s (k(x, T_s y) + k(T_s x, y))] over the four shifts s, the
  pairs that include the identity, symmetric by construction: 9 products;
* ``relative``: (1/5) [k(x, y) + Σ_{s ∈ {down, right}} (k(x, T_s y) + k(T_s x, y))]: the relative shifts
  0, ±down, ±right with k(x, T_{−s} y) taken as k(T_s x, y), 5 products.
* ``test-shifts``: the identity kernel to fit, and each scored image's prediction averaged over its
  five views, (1/5) Σ_a k(Tₐx, y) against the fit rows: one fit product, five scored ones;
* ``two-layer``: the identity kernel's d → ∞ limit taken again, as if a second random ReLU layer
  (He scale, Gaussian bias) were stacked on the first: the arc-cosine formula applied to the inner
  products 2·k(x, y) + 1 (:func:`two_layer`); one product and one more elementwise pass.

The last two need not be positive semi-definite; the report gives each kernel's smallest eigenvalue
over its mean diagonal. Every kernel is solved at each jitter of ``--jitters`` (μ = jitter · mean diag K)
and scored on the validation rows at each: a curve per kernel, compared at equal jitter. The rows are
the training images' only (``greenelm_book.chapters.frontier_features.held_out_patch_views``: the
first ``--subset`` training images, ``--validation`` of them held out, the rest fitted); the test
images are never read, so a comparison here chooses nothing the frontier's protocol reports.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from .patches import VALIDATION_NOTE, add_patch_arguments, provenance, write_report

#: the views of ``greenelm_book.chapters.frontier_features.augmented(images, "shift")`` after the identity, in its order
SHIFTS = ("down", "up", "right", "left")
KERNELS = ("identity", "average", "symmetrised", "relative", "test-shifts", "two-layer")


def _products(kernel: str, scored: bool = False) -> list[tuple[int, int, float]]:
    """(row view, column view, weight) of each term of ``kernel``, views indexed 0 (identity) to 4
    (:data:`SHIFTS`); ``scored``: the terms of the scored rows' kernel against the fit rows."""
    if kernel == "test-shifts" and scored:
        return [(a, 0, 1 / 5) for a in range(5)]
    if kernel in ("identity", "test-shifts", "two-layer"):
        return [(0, 0, 1.0)]
    if kernel == "average":
        return [(a, b, 1 / 25) for a in range(5) for b in range(5)]
    shifts = (1, 2, 3, 4) if kernel == "symmetrised" else (1, 3)      # relative: down and right only
    weight = 1 / (1 + 2 * len(shifts))
    return [(0, 0, weight)] + [term for s in shifts for term in ((0, s, weight), (s, 0, weight))]


def kernel_of(kernel: str, rows: list[np.ndarray], cols: list[np.ndarray], scored: bool = False) -> np.ndarray:
    """K (n, m) float64: the weighted sum of ``kernel``'s arc-cosine terms (He scale) between the
    views ``rows`` [(n, F) per view] and ``cols`` [(m, F) per view], products in float32 (``scored``:
    the scored rows' terms, :func:`_products`); for ``two-layer``, the identity kernel passed through
    :func:`two_layer`."""
    from greenelm.kernels import arccos_kernel

    if kernel == "two-layer":
        return two_layer(kernel_of("identity", rows, cols), self_kernel(rows[0]), self_kernel(cols[0]))
    terms = {(a, b): weight for a, b, weight in _products(kernel, scored)}
    total = np.zeros((len(rows[0]), len(cols[0])))
    for (a, b), weight in terms.items():
        if rows is cols and a > b:
            continue                                  # added as the transpose of its pair (b, a)
        term = arccos_kernel(rows[a], cols[b], weight_scale="he", dtype="float32").astype(np.float64)
        total += weight * term
        if rows is cols and a < b:
            total += terms[(b, a)] * term.T           # k(T_b x, T_a y) = k(T_a y, T_b x)
    return total


def self_kernel(X: np.ndarray) -> np.ndarray:
    """k(x, x) (n,) of the arc-cosine kernel (He scale, Gaussian bias) for rows X (n, F): ‖x̃‖² / 2, the
    angle being 0."""
    from greenelm.kernels import augment

    augmented = augment(X, "he")
    return 0.5 * np.einsum("ij,ij->i", augmented, augmented)


def two_layer(K: np.ndarray, diag_rows: np.ndarray, diag_cols: np.ndarray) -> np.ndarray:
    """The arc-cosine kernel of a second random ReLU layer on the first's d → ∞ features: with He
    weights N(0, 2/d) and a N(0, 1) bias, its inner products are 2·k(x, y) + 1 and its norms
    √(2·k(x, x) + 1). K (n, m) → K₂ (n, m), in place."""
    from greenelm.kernels import _arccos_from_products

    K *= 2.0
    K += 1.0
    return _arccos_from_products(K, np.sqrt(2 * diag_rows + 1), np.sqrt(2 * diag_cols + 1))


def measure(n_patches: int, pool: int, seed: int, subset: int, n_validation: int, jitters, kernels=KERNELS,
            eigenvalue: bool = True) -> dict:
    """The features of the first ``subset`` MNIST training images and of their four shifts, split
    into ``n_validation`` validation rows and fit rows (seed ``seed``), then each of :data:`KERNELS`
    fitted on the fit rows at every jitter: validation accuracy, seconds, smallest eigenvalue (None
    without ``eigenvalue``: it costs an O(n³) reduction, more than the solves at 20,000 rows)."""
    from scipy.linalg import cho_factor, cho_solve, eigh

    from greenelm_book.chapters.frontier_features import held_out_patch_views

    start = time.perf_counter()
    features = held_out_patch_views("mnist", n_patches, seed, subset=subset, n_validation=n_validation, pool=pool,
                                    views=("shift",))
    feature_seconds = time.perf_counter() - start
    train, scored = features["X_fit"], features["X_validation"]
    y_train, y_scored = features["y_fit"], features["y_validation"]
    targets = np.eye(int(y_train.max()) + 1)[y_train]
    runs = []
    for name in kernels:
        start = time.perf_counter()
        K = kernel_of(name, train, train)
        K = (K + K.T) / 2                             # the float32 products' rounding on the diagonal terms
        K_scored = kernel_of(name, scored, train, scored=True)
        kernel_seconds = time.perf_counter() - start
        scale = float(np.mean(np.diag(K)))
        smallest = (float(eigh(K, eigvals_only=True, subset_by_index=[0, 0], driver="evr")[0]) / scale
                    if eigenvalue else None)
        accuracy, solve_seconds = [], 0.0
        for jitter in jitters:
            start = time.perf_counter()
            try:
                factor = cho_factor(K + jitter * scale * np.eye(len(K)), lower=True, check_finite=False)
            except np.linalg.LinAlgError:
                accuracy.append(None)
                continue
            scores = K_scored @ cho_solve(factor, targets, check_finite=False)
            solve_seconds += time.perf_counter() - start
            accuracy.append(100 * float(np.mean(scores.argmax(1) == y_scored)))
        runs.append({"kernel": name, "products": len(_products(name)), "scored_products": len(_products(name, True)),
                     "kernel_seconds": kernel_seconds,
                     "solve_seconds": solve_seconds, "smallest_eigenvalue": smallest, "accuracy": accuracy})
        del K, K_scored
    return {"n_patches": n_patches, "pool": pool, "seed": seed, "subset": subset, "n_fit": len(y_train),
            "n_validation": len(y_scored), "scored": "validation", "n_features": int(features["n_features"]),
            "feature_seconds": feature_seconds,
            "jitters": [float(j) for j in jitters], "runs": runs}


def _fewer_errors(accuracy: float, base: float) -> str:
    """' (9 % fewer errors than the identity kernel).' for accuracies (%) against a base; '.' alone
    when the base made no errors (no share of them to speak of)."""
    from greenelm_book.report import errors_removed

    change = errors_removed(accuracy, base)
    if change is None:
        return "."
    if round(abs(change) * 100) == 0:
        return " (as many errors as the identity kernel, to the per cent)."
    return f" ({abs(change) * 100:.0f} % {'fewer' if change >= 0 else 'more'} errors than the identity kernel)."


def markdown(report: dict) -> str:
    m = report["measure"]
    jitters = m["jitters"]
    lines = ["# One-pixel shifts in the stacked limit's kernel", "",
             f"{report['machine']}, {report['date']}; `{report['command']}`.", "", VALIDATION_NOTE, "",
             f"MNIST, the first {m['subset']:,} training images: {m['n_fit']:,} fit rows and {m['n_validation']:,} "
             f"validation rows, K = {m['n_patches']} "
             f"pooled {m['pool']} × {m['pool']} ({m['n_features']:,} inputs), seed {m['seed']} (patches and split); features of the "
             f"images and their four one-pixel shifts in {m['feature_seconds']:.0f} s. Validation accuracy (%) at "
             "each jitter (μ = jitter · mean diag K); kernel seconds = the fit and validation kernels' products and "
             "transforms, float32 products summed in float64 (a different code path from the chapter's; "
             "relative costs only).", "",
             "| kernel | products (fit / scored) | kernel (s) | smallest eigenvalue / mean diag | "
             + " | ".join(f"{j:g}" for j in jitters) + " |",
             "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in jitters) + " |"]
    for run in m["runs"]:
        lines.append(f"| {run['kernel']} | {run['products']} / {run['scored_products']} | "
                     f"{run['kernel_seconds']:.0f} | "
                     + ("not computed" if run["smallest_eigenvalue"] is None else f"{run['smallest_eigenvalue']:.1e}")
                     + " | "
                     + " | ".join("—" if a is None else f"{a:.2f}" for a in run["accuracy"]) + " |")
    lines += ["", "— : the kernel plus μ·I did not factorise. The kernels: see the module's docstring.", ""]
    runs = {run["kernel"]: run for run in m["runs"]}
    base = runs.get("identity")
    for name, what in (("average", "Averaging over the shifts"),
                       ("test-shifts", "Averaging each validation image's prediction over its shifts (the fitted "
                        "kernel unchanged)"),
                       ("two-layer", "The second layer's limit")):
        if base is None or name not in runs:
            continue
        gains = [a - b for a, b in zip(runs[name]["accuracy"], base["accuracy"]) if a is not None and b is not None]
        if gains:
            best, best_base = (max(a for a in r["accuracy"] if a is not None) for r in (runs[name], base))
            lines.append(f"{what} moves the validation accuracy by {min(gains):+.2f} to {max(gains):+.2f} points "
                         f"across the jitters, for {runs[name]['kernel_seconds'] / base['kernel_seconds']:.1f}× the "
                         f"identity kernel's seconds; at the best jitter of each, the validation error goes from "
                         f"{100 - best_base:.2f} % to {100 - best:.2f} %"
                         + _fewer_errors(best, best_base))
    indefinite = [name for name in ("symmetrised", "relative")
                  if name in runs and (runs[name]["smallest_eigenvalue"] or 0) < 0]
    if indefinite:
        lines.append(f"{' and '.join(indefinite).capitalize()}: not positive semi-definite (smallest eigenvalue "
                     + ", ".join(f"{runs[n]['smallest_eigenvalue']:.2f}" for n in indefinite)
                     + " of the mean diagonal), so the shortcut through relative shifts does not give a kernel here.")
    lines.append("")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_patch_arguments(parser, n_patches=256, subset=20000, validation=10000)
    parser.add_argument("--jitters", type=float, nargs="+", default=[1e-6, 1e-5, 1e-4, 1e-3, 1e-2])
    parser.add_argument("--kernels", nargs="+", choices=KERNELS, default=list(KERNELS))
    parser.add_argument("--no-eigenvalue", dest="eigenvalue", action="store_false",
                        help="skip the smallest eigenvalue (an O(n³) reduction per kernel)")
    parser.add_argument("--out", default="benchmarks/reports/shift_kernel")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    run = measure(args.n_patches, args.pool, args.seed, args.subset, args.validation, args.jitters, args.kernels,
                  args.eigenvalue)
    write_report(provenance("benchmarks.shift_kernel", argv) | {"measure": run}, args.out, markdown)


if __name__ == "__main__":
    main()
