"""The float32 Gram by panels (issue 22): ``sgemm`` off the diagonal, ``ssyrk`` on it.

Each panel of the result is checked on its own against a float64 reference and against the one
``ssyrk`` of the whole block that the previous implementation ran, so a panel computed from the
wrong columns, dropped or added twice fails here (see the mutation tests at the end)."""

import pickle

import numpy as np
import pytest
from scipy.linalg import blas

import greenelm.solvers as solvers
from greenelm import ELMRegressor, RandomReLUFeatures
from greenelm.solvers import (FLOAT32_BLOCK_ROWS, GRAM_PANEL, NormalEquations, add_float32_gram, block_order,
                              solve, symmetrize_upper)

EPS32 = float(np.finfo(np.float32).eps)
# (n rows, d features, k targets, panel width): d not a multiple of the panel, d < panel, d equal
# to it, many panels, a single row, a single feature
SHAPES = [(300, 1100, 3, GRAM_PANEL), (50, 200, 2, GRAM_PANEL), (129, 64, 4, 64), (77, 130, 1, 32),
          (1, 37, 1, 16), (40, 1, 2, 8), (5, 9, 1, 1)]


def centred_block(n, d, k, seed=0):
    """[H̃ Y] (n, d + k) float32, Fortran-ordered: features centred on their means, as the sums form."""
    rng = np.random.default_rng(seed)
    H = (3.0 + rng.random((n, d))).astype(np.float32)
    Y = rng.standard_normal((n, k)).astype(np.float32)
    block = np.empty((n, d + k), dtype=np.float32, order="F")
    np.subtract(H, H.mean(axis=0), out=block[:, :d])
    block[:, d:] = Y
    return block


def panels(d, panel):
    return [slice(start, min(start + panel, d)) for start in range(0, d, panel)]


def assert_each_panel(gram, hty, block, d, panel, sentinel):
    """Every panel (i ≤ j) of the upper triangle and every panel of rows of H̃ᵀY equals the float64
    product of the float32 block within float32 accumulation error (n·eps·‖column i‖‖column j‖);
    the lower triangle is untouched (still ``sentinel``)."""
    reference = block.astype(np.float64).T @ block.astype(np.float64)
    norms = np.linalg.norm(block.astype(np.float64), axis=0)
    bound = 2 * block.shape[0] * EPS32 * np.outer(norms, norms) + 1e-30
    upper = np.triu(np.ones((d, d), dtype=bool))
    for i, rows in enumerate(panels(d, panel)):
        for j, cols in enumerate(panels(d, panel)):
            if j < i:
                continue
            keep = upper[rows, cols]
            error = np.abs(gram[rows, cols] - reference[rows, cols])[keep]
            assert (error <= bound[rows, cols][keep]).all(), f"panel ({i}, {j}) of the Gram is wrong"
        error = np.abs(hty[rows] - reference[rows, d:])
        assert (error <= bound[rows, d:]).all(), f"panel {i} of H̃ᵀY is wrong"
    assert (gram[~upper] == sentinel).all(), "the lower triangle was written"


@pytest.mark.parametrize("n, d, k, panel", SHAPES)
def test_panel_gram_equals_the_float64_product_panel_by_panel(n, d, k, panel):
    block = centred_block(n, d, k, seed=n + d)
    gram = np.full((d, d), 7.0, order="F")
    gram[np.triu_indices(d)] = 0.0
    hty = np.zeros((d, k))
    add_float32_gram(block, d, gram, hty, panel=panel)
    assert_each_panel(gram, hty, block, d, panel, sentinel=7.0)


@pytest.mark.parametrize("n, d, k, panel", SHAPES)
def test_panel_gram_equals_the_single_ssyrk_it_replaces(n, d, k, panel):
    """The previous implementation: one ssyrk of [H̃ Y]; the same float32 products to ~1e-5."""
    block = centred_block(n, d, k, seed=1)
    gram, hty = np.zeros((d, d), order="F"), np.zeros((d, k))
    add_float32_gram(block, d, gram, hty, panel=panel)
    previous = blas.ssyrk(1.0, np.ascontiguousarray(block.T), trans=0, lower=0).astype(np.float64)
    scale = np.abs(previous).max()
    np.testing.assert_allclose(np.triu(gram), np.triu(previous[:d, :d]), rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(hty, previous[:d, d:], rtol=0, atol=1e-5 * scale)


def test_panel_gram_adds_into_the_sums_and_reuses_one_strip():
    """Two blocks through one work buffer (which holds the previous strip's values: only the upper
    triangle of each diagonal square may be added) add up to the Gram of both."""
    d, k = 70, 2
    first, second = centred_block(90, d, k, seed=2), centred_block(33, d, k, seed=3)
    work = np.full(16 * (d + k), np.nan, dtype=np.float32)
    gram, hty = np.zeros((d, d), order="F"), np.zeros((d, k))
    for block in (first, second):
        add_float32_gram(block, d, gram, hty, work=work, panel=16)
    both = np.asfortranarray(np.vstack([first, second]))
    assert_each_panel(gram, hty, both, d, 16, sentinel=0.0)


def test_normal_equations_sums_match_the_previous_float32_path():
    """Whole NormalEquations sums (centring, rank-2 correction, gathering) against the previous
    algorithm re-run here: one ssyrk of [H̃ Y] per block of FLOAT32_BLOCK_ROWS rows."""
    rng = np.random.default_rng(4)
    n, d, k = 5000, 600, 10
    H = (2.0 + rng.random((n, d))).astype(np.float32)
    Y = rng.random((n, k)).astype(np.float32)
    equations = NormalEquations(d, k, "float32")
    equations.update(np.asfortranarray(H), Y)
    gram, hty = previous_float32_sums(H, Y)
    scale = np.abs(gram).max()
    np.testing.assert_allclose(np.triu(equations.gram), gram, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(equations.hty, hty, rtol=0, atol=1e-6 * np.abs(hty).max())
    assert (np.tril(equations.gram, -1) == 0).all()
    # C-ordered blocks are transposed into the centred copy before their means: the same sums
    in_c_order = NormalEquations(d, k, "float32")
    in_c_order.update(H, Y)
    np.testing.assert_array_equal(in_c_order.gram, equations.gram)
    np.testing.assert_array_equal(in_c_order.hty, equations.hty)


def previous_float32_sums(H, Y):
    """The float32 sums as the previous implementation formed them (float64 upper Gram, HᵀY)."""
    d = H.shape[1]
    gram, hty = np.zeros((d, d)), np.zeros((d, Y.shape[1]))
    for start in range(0, len(H), FLOAT32_BLOCK_ROWS):
        rows, targets = H[start:start + FLOAT32_BLOCK_ROWS], Y[start:start + FLOAT32_BLOCK_ROWS]
        n = len(rows)
        shift = rows.mean(axis=0)
        block = np.hstack([rows - shift, targets]).astype(np.float32)
        product = blas.ssyrk(1.0, block.T, trans=0, lower=0)
        shift = shift.astype(np.float64)
        v = block[:, :d].sum(axis=0, dtype=np.float64) + 0.5 * n * shift
        gram += np.triu(product[:d, :d]) + np.triu(np.outer(shift, v) + np.outer(v, shift))
        hty += product[:d, d:] + np.outer(shift, targets.sum(axis=0, dtype=np.float64))
    return gram, hty


def test_float32_fit_predicts_as_the_previous_implementation():
    """A float32 fit (cond(G + λI) ≈ 7e4) against the previous sums of the same features: the sums
    to ~1e-7, readout and predictions to float32 rounding (both are ~1.5e-6 from the float64
    solution, here ~6e-6 apart), and no further from the float64 solution than the previous fit."""
    rng = np.random.default_rng(6)
    X = rng.standard_normal((5000, 40))
    y = np.column_stack([np.sin(X[:, 0]) + X[:, 1], X[:, 2] * X[:, 3]])
    model = ELMRegressor(n_hidden=200, alpha=0.1, dtype="float32", weight_scale="he",
                         random_state=3).fit(X, y)
    H = model.features_.transform(X)                # the C-ordered blocks the previous fit summed
    gram, hty = previous_float32_sums(H, y.astype(np.float32))
    np.testing.assert_allclose(np.triu(model.equations_.gram), gram, rtol=0, atol=1e-6 * np.abs(gram).max())
    previous = solvers.solve_normal_equations(gram, hty, 0.1, "cholesky")
    np.testing.assert_allclose(model.coef_, previous, rtol=0, atol=2e-5 * np.abs(previous).max())
    predicted, expected = model.predict(X), H @ previous.astype(np.float32)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(predicted, expected, rtol=0, atol=1e-5 * scale)
    H64 = H.astype(np.float64)
    exact = H64 @ np.linalg.solve(H64.T @ H64 + 0.1 * np.eye(200), H64.T @ y)
    assert np.abs(predicted - exact).max() <= 2 * np.abs(expected - exact).max() + 1e-7 * scale


def test_float32_fits_ask_for_fortran_blocks_and_float64_fits_for_c_blocks(monkeypatch):
    orders = []
    real = RandomReLUFeatures.chunks

    def spy(self, X, *args, **kwargs):
        orders.append(kwargs.get("order", "C"))
        return real(self, X, *args, **kwargs)

    monkeypatch.setattr(RandomReLUFeatures, "chunks", spy)
    X, y = np.random.default_rng(0).random((300, 5)), np.arange(300.0)
    for dtype in ("float32", "float64"):
        orders.clear()
        ELMRegressor(n_hidden=20, dtype=dtype).fit(X, y)
        assert orders == [block_order(dtype)] == [{"float32": "F", "float64": "C"}[dtype]]


def test_float64_sums_are_still_one_dsyrk_bit_for_bit():
    rng = np.random.default_rng(7)
    H, Y = rng.random((1500, 90)), rng.random((1500, 2))
    equations = NormalEquations(90, 2, "float64", block_rows=1500)
    equations.update(H, Y)
    expected = blas.dsyrk(1.0, H.T, beta=1.0, c=np.zeros((90, 90), order="F"), trans=0, lower=0)
    np.testing.assert_array_equal(equations.gram, expected)


def test_gathered_float32_rows_wait_in_fortran_order_and_float64_in_c_order():
    for dtype, contiguous in (("float32", "f_contiguous"), ("float64", "c_contiguous")):
        equations = NormalEquations(6, 1, dtype, block_rows=8)
        equations.update(np.ones((3, 6), dtype=dtype), np.ones((3, 1), dtype=dtype))
        assert getattr(equations._buffer_H.flags, contiguous) and equations.pending_rows == 3


def test_feature_chunks_in_fortran_order_reuse_one_buffer():
    X = np.random.default_rng(8).random((70, 9))
    for dtype in ("float32", "float64"):
        features = RandomReLUFeatures(9, 40, seed=1, dtype=dtype)
        fresh = [(rows, H.copy()) for rows, H in features.chunks(X, 32)]
        blocks = list(features.chunks(X, 32, reuse=True, order="F"))
        assert [rows for rows, _ in blocks] == [rows for rows, _ in fresh]   # 32, 32, 6 rows
        assert len({H.__array_interface__["data"][0] for _, H in blocks}) == 1
        rtol = 1e-6 if dtype == "float32" else 1e-14
        for (rows, H), (_, reference) in zip(features.chunks(X, 32, reuse=True, order="F"), fresh):
            assert H.flags.f_contiguous and H.dtype == np.dtype(dtype)
            np.testing.assert_allclose(H, reference, rtol=rtol, atol=rtol * np.abs(reference).max())
        for (_, H), (_, reference) in zip(features.chunks(X, 32, order="F"), fresh):
            assert H.flags.f_contiguous
            np.testing.assert_allclose(H, reference, rtol=rtol, atol=rtol * np.abs(reference).max())
    with pytest.raises(ValueError, match="order must be 'C' or 'F', got 'K'"):
        next(features.chunks(X, 32, order="K"))


@pytest.mark.parametrize("batch", [1, 7, 300])
def test_float32_partial_fit_resumes_to_the_same_sums(batch):
    """partial_fit in batches, pickled half way, continues to the sums of an uninterrupted run that
    read its readout (which adds the gathered rows) at the same point, bit for bit; both equal
    fit's sums to float32 accuracy."""
    rng = np.random.default_rng(9)
    X, y = rng.random((900, 6)), rng.random(900)
    make = lambda: ELMRegressor(n_hidden=40, dtype="float32", random_state=2)  # noqa: E731
    resumed, straight = make(), make()
    for start in range(0, 450, batch):
        for model in (resumed, straight):
            model.partial_fit(X[start:min(start + batch, 450)], y[start:min(start + batch, 450)])
    resumed = pickle.loads(pickle.dumps(resumed))
    straight.coef_                                  # noqa: B018 - adds the gathered rows here
    for start in range(450, 900, batch):
        for model in (resumed, straight):
            model.partial_fit(X[start:start + batch], y[start:start + batch])
    np.testing.assert_array_equal(resumed.coef_, straight.coef_)
    np.testing.assert_array_equal(resumed.equations_.gram, straight.equations_.gram)
    fitted = make().fit(X, y)
    scale = np.abs(fitted.equations_.gram).max()
    np.testing.assert_allclose(resumed.equations_.gram, fitted.equations_.gram, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(resumed.predict(X), fitted.predict(X), rtol=1e-3)


def test_solved_from_panel_sums_equals_the_float64_solution():
    """The symmetric matrix the solvers read (upper triangle mirrored) from float32 panel sums."""
    rng = np.random.default_rng(10)
    H = (1.0 + rng.random((3000, 700))).astype(np.float32)
    Y = rng.random((3000, 2))
    equations = NormalEquations(700, 2, "float32")
    equations.update(np.asfortranarray(H), Y.astype(np.float32))
    H64 = H.astype(np.float64)
    full = symmetrize_upper(equations.gram)
    np.testing.assert_allclose(full, H64.T @ H64, rtol=1e-6)
    np.testing.assert_array_equal(full, full.T)
    reference = np.linalg.solve(H64.T @ H64 + 1.0 * np.eye(700), H64.T @ Y)
    np.testing.assert_allclose(solve(equations, "cholesky", 1.0), reference, rtol=0,
                               atol=1e-3 * np.abs(reference).max())


# -- the checks can fail: one wrong panel is caught ----------------------------------------------------
class _Tampered:
    """A module (SciPy's BLAS, NumPy) with one function replaced: ``replace(name, function)``."""

    def __init__(self, module, name, function):
        self.module, self.name, self.function = module, name, function

    def __getattr__(self, name):
        return self.function if name == self.name else getattr(self.module, name)


def _off_by_one_sgemm(wrong):
    """``sgemm`` whose ``wrong``-th call returns its columns shifted by one (a panel offset bug)."""
    calls = []

    def sgemm(*args, **kwargs):
        calls.append(None)
        result = blas.sgemm(*args, **kwargs)
        return np.roll(result, 1, axis=1) if len(calls) == wrong else result
    return sgemm


@pytest.mark.parametrize("wrong, message", [(1, "panel \\(0, 1\\) of the Gram"),
                                            (2, "panel \\(1, 2\\) of the Gram"),
                                            (3, "panel 2 of H̃ᵀY")])
def test_a_single_wrong_panel_is_caught(monkeypatch, wrong, message):
    """d = 1,100 in panels of 512: the three sgemm calls give rows 0:512 (panels (0, 1), (0, 2) and
    H̃ᵀY), rows 512:1024 and rows 1024:1100 (H̃ᵀY only)."""
    n, d, k, panel = 300, 1100, 3, GRAM_PANEL
    block = centred_block(n, d, k, seed=11)
    monkeypatch.setattr(solvers, "blas", _Tampered(blas, "sgemm", _off_by_one_sgemm(wrong)))
    gram, hty = np.zeros((d, d), order="F"), np.zeros((d, k))
    add_float32_gram(block, d, gram, hty, panel=panel)
    with pytest.raises(AssertionError, match=message):
        assert_each_panel(gram, hty, block, d, panel, sentinel=0.0)


def test_a_diagonal_square_added_whole_is_caught(monkeypatch):
    """Adding the strip's whole diagonal square (its lower triangle is stale) writes below the diagonal."""
    monkeypatch.setattr(solvers, "np", _Tampered(np, "triu", lambda a: a))
    d, k = 70, 2
    block = centred_block(90, d, k, seed=12)
    gram, hty = np.zeros((d, d), order="F"), np.zeros((d, k))
    add_float32_gram(block, d, gram, hty, work=np.full(16 * (d + k), 5.0, np.float32), panel=16)
    with pytest.raises(AssertionError, match="the lower triangle was written"):
        assert_each_panel(gram, hty, block, d, 16, sentinel=0.0)
