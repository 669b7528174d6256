"""Features and solvers: agreement with references, chunking, determinism, bad input."""

import numpy as np
import pytest

from greenelm.features import RandomReLUFeatures, draw_projection
from greenelm.solvers import (LARGE_ORDER, GramSpectrum, NormalEquations, fit_flops,
                              solve, solve_min_norm, solve_normal_equations, symmetrize_upper)


def problem(n=400, d=60, k=3, seed=0):
    """A well-posed least-squares problem: H (n, d) full column rank, Y (n, k)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((n, k))


def accumulate(H, Y, block=97):
    equations = NormalEquations(H.shape[1], Y.shape[1])
    for start in range(0, len(H), block):
        equations.update(H[start:start + block], Y[start:start + block])
    return equations


def test_gram_accumulation_equals_full_products():
    H, Y = problem()
    equations = accumulate(H, Y)
    np.testing.assert_allclose(symmetrize_upper(equations.gram), H.T @ H, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(equations.hty, H.T @ Y, rtol=1e-12, atol=1e-10)
    assert equations.n_samples == len(H)


def test_added_accumulators_equal_one_pass():
    H, Y = problem()
    left, right = accumulate(H[:150], Y[:150]), accumulate(H[150:], Y[150:])
    both = left + right
    np.testing.assert_allclose(both.gram, accumulate(H, Y).gram, rtol=1e-12)
    assert both.n_samples == len(H)


@pytest.mark.parametrize("solver", ["lu", "cholesky", "eigh"])
def test_ridge_solvers_match_the_explicit_ridge_formula(solver):
    H, Y = problem()
    alpha = 0.7
    reference = np.linalg.solve(H.T @ H + alpha * np.eye(H.shape[1]), H.T @ Y)
    W2 = solve(accumulate(H, Y), solver, alpha)
    np.testing.assert_allclose(W2, reference, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("solver", ["lu", "cholesky", "eigh"])
def test_small_ridge_solutions_agree_with_lstsq(solver):
    H, Y = problem()
    reference = np.linalg.lstsq(H, Y, rcond=None)[0]
    np.testing.assert_allclose(solve(accumulate(H, Y), solver, 1e-10), reference, rtol=1e-7,
                               atol=1e-9)


def test_pinv_is_the_minimum_norm_solution_and_the_eigh_limit():
    rng = np.random.default_rng(1)
    # Rank-deficient H: 30 columns spanned by 12; lstsq/pinv pick the minimum-norm solution.
    H = rng.standard_normal((200, 12)) @ rng.standard_normal((12, 30))
    Y = rng.standard_normal((200, 2))
    W_pinv = solve_min_norm(H, Y)
    np.testing.assert_allclose(W_pinv, np.linalg.pinv(H) @ Y, rtol=1e-8, atol=1e-10)
    # The eigh solver at alpha=0 is the same minimum-norm limit, on a full-rank problem.
    H, Y = problem()
    np.testing.assert_allclose(GramSpectrum(accumulate(H, Y).gram).weights(H.T @ Y, 0.0),
                               solve_min_norm(H, Y), rtol=1e-8, atol=1e-10)


def test_eigh_gives_every_lambda_from_one_factorisation():
    H, Y = problem()
    spectrum = GramSpectrum(accumulate(H, Y).gram)
    for alpha in (1e-3, 1.0, 100.0):
        reference = np.linalg.solve(H.T @ H + alpha * np.eye(H.shape[1]), H.T @ Y)
        np.testing.assert_allclose(spectrum.weights(H.T @ Y, alpha), reference, rtol=1e-9)


def test_large_orders_route_to_torch_with_the_same_answer(monkeypatch):
    pytest.importorskip("torch")
    import greenelm.solvers as solvers

    H, Y = problem(d=50)
    equations = accumulate(H, Y)
    expected = {name: solve(equations, name, 1e-2) for name in ("lu", "cholesky", "eigh")}
    monkeypatch.setattr(solvers, "LARGE_ORDER", 10)  # every matrix now counts as large
    for name, W2 in expected.items():
        np.testing.assert_allclose(solve(equations, name, 1e-2), W2, rtol=1e-9)
    assert LARGE_ORDER == 16000


def test_large_orders_without_torch_run_in_scipy_single_threaded(monkeypatch):
    """A core install (no torch): the same answers from SciPy, its BLAS limited to one thread."""
    import importlib.util

    import threadpoolctl

    import greenelm.solvers as solvers

    H, Y = problem(d=50)
    equations = accumulate(H, Y)
    expected = {name: solve(equations, name, 1e-2) for name in ("lu", "cholesky", "eigh")}
    limits = []
    real_limits, real_find_spec = threadpoolctl.threadpool_limits, importlib.util.find_spec
    monkeypatch.setattr(solvers, "LARGE_ORDER", 10)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real_find_spec(name, *a))
    monkeypatch.setattr(threadpoolctl, "threadpool_limits",
                        lambda **kw: limits.append(kw) or real_limits(**kw))
    monkeypatch.setattr(solvers, "_solve_torch", lambda *a: pytest.fail("torch was used"))
    for name, W2 in expected.items():
        np.testing.assert_allclose(solve(equations, name, 1e-2), W2, rtol=1e-9)
    assert limits == [{"limits": 1, "user_api": "blas"}] * 3


def test_not_positive_definite_names_the_problem():
    G = -np.eye(5)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        solve_normal_equations(G, np.ones((5, 1)), 1e-3, "cholesky")


def test_bad_solver_and_lambda_are_refused():
    H, Y = problem()
    equations = accumulate(H, Y)
    with pytest.raises(ValueError, match="unknown solver 'qr'"):
        solve(equations, "qr")
    with pytest.raises(ValueError, match="pinv.*needs all of H"):
        solve(equations, "pinv")
    for alpha in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="alpha"):
            solve(equations, "cholesky", alpha)
    with pytest.raises(ValueError, match="no samples"):
        solve(NormalEquations(4, 2), "cholesky")
    with pytest.raises(ValueError, match="do not match"):
        equations.update(H[:, :5], Y)


def test_features_are_seeded_chunked_and_shared_across_precisions():
    X = np.random.default_rng(2).random((1000, 30))
    f64 = RandomReLUFeatures(30, 200, seed=7)
    again = RandomReLUFeatures(30, 200, seed=7)
    H = f64.transform(X)
    np.testing.assert_array_equal(H, again.transform(X))
    assert not np.allclose(H, RandomReLUFeatures(30, 200, seed=8).transform(X))
    chunked = np.vstack([block for _, block in f64.chunks(X, chunk_rows=333)])
    np.testing.assert_allclose(chunked, H, rtol=1e-12, atol=1e-12)
    H32 = RandomReLUFeatures(30, 200, seed=7, dtype="float32").transform(X)
    assert H32.dtype == np.float32
    np.testing.assert_allclose(H32, H, rtol=1e-4, atol=1e-4)
    assert (H >= 0).all() and (H == 0).any()


def test_weight_scales_and_bias_distributions():
    W_unit, b_normal = draw_projection(400, 3000, seed=0, weight_scale="unit", bias="normal")
    W_he, b_uniform = draw_projection(400, 3000, seed=0, weight_scale="he", bias="uniform")
    assert abs(W_unit.std() - 1.0) < 0.01
    assert abs(W_he.std() - np.sqrt(2 / 400)) < 0.01 * np.sqrt(2 / 400)
    assert abs(b_normal.std() - 1.0) < 0.05
    assert b_uniform.min() >= -1 and b_uniform.max() <= 1 and abs(b_uniform.std() - 1 / np.sqrt(3)) < 0.02
    with pytest.raises(ValueError, match="unknown weight_scale 'xavier'"):
        draw_projection(4, 4, 0, weight_scale="xavier")
    with pytest.raises(ValueError, match="n_hidden must be an integer >= 1"):
        draw_projection(4, 0, 0)


def test_torch_features_and_sums_match_numpy(torch_device):
    torch = pytest.importorskip("torch")
    X = np.random.default_rng(3).random((300, 20))
    Y = np.eye(3)[np.arange(300) % 3]
    numpy_features = RandomReLUFeatures(20, 64, seed=1)
    torch_features = RandomReLUFeatures(20, 64, seed=1, device=torch_device)
    H = torch_features.transform(X)
    assert isinstance(H, torch.Tensor)
    assert H.device.type == torch_device
    np.testing.assert_allclose(H.cpu().numpy(), numpy_features.transform(X), rtol=1e-12, atol=1e-12)
    equations = NormalEquations(64, 3, device=torch_device)
    equations.update(H, torch.as_tensor(Y, device=torch_device))
    on_numpy = accumulate(numpy_features.transform(X), Y)
    # another LAPACK (cuSOLVER on CUDA) rounds differently: a backward-stable solve's forward error
    # is O(κ ε) of the solution (κ = cond(G + λI) ≈ 3e6 here; 1.1 κ ε was seen on an H200)
    gram = symmetrize_upper(on_numpy.gram) + 1e-2 * np.eye(64)
    bound = 20 * np.linalg.cond(gram) * np.finfo(np.float64).eps
    for name in ("cholesky", "lu", "eigh"):
        expected = solve(on_numpy, name, 1e-2)
        np.testing.assert_allclose(solve(equations, name, 1e-2), expected, rtol=0,
                                   atol=bound * np.abs(expected).max())


def test_flop_count_of_the_paper_setting():
    flops = fit_flops(60000, 784, 4000)
    assert flops.features == 2 * 60000 * 784 * 4000
    assert flops.gram > 60000 * 4000**2
    assert 1.3e12 < flops.total < 1.4e12

