"""greenelm_book.chapters.weight_statistics: the paper's histogram entropy and the weight-distribution statistics."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from greenelm_book.chapters.weight_statistics import (entropy_from_counts, gaussian_entropy, histogram_counts,
                              histogram_entropy, hoyer_sparsity, linear_weights, matched_entropy,
                              near_zero_fraction, quantile_symmetry, weight_statistics)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# ----------------------------------------------------------------------------- the definition
@pytest.mark.parametrize("K", [1, 2, 16, 256])
def test_uniform_samples_give_log2_K(rng, K):
    assert histogram_entropy(rng.random(400_000), bins=K) == pytest.approx(np.log2(K), abs=2e-3)


def test_evenly_spread_values_give_exactly_log2_K():
    # the two ends and one value inside each of 64 equal bins over [0, 1]: each bin holds one or two
    w = np.concatenate([(np.arange(64) + 0.5) / 64, [0.0, 1.0]])
    counts = histogram_counts(w, 64)
    assert counts.sum() == w.size and counts.min() == 1 and counts[0] == counts[-1] == 2
    # the same 64 values spread evenly over their own range: exactly one per bin, log2 64 = 6 bits
    w = np.arange(64.0)
    assert np.array_equal(histogram_counts(w, 64), np.ones(64))
    assert histogram_entropy(w, 64) == pytest.approx(6.0, abs=1e-12)


@pytest.mark.parametrize("w", [np.full(50, 3.7), np.zeros((4, 5)), np.array([2.0])])
def test_constant_gives_zero(w):
    assert histogram_entropy(w, 32) == 0.0


def test_one_hot_histogram_gives_zero_and_two_values_give_one_bit():
    assert entropy_from_counts([0, 0, 9, 0]) == 0.0
    assert histogram_entropy(np.r_[np.zeros(10), np.ones(10)], 256) == pytest.approx(1.0)
    # a one-hot weight vector: two occupied bins with 9:1 mass
    w = np.zeros(10)
    w[3] = 1.0
    expected = -(0.9 * np.log2(0.9) + 0.1 * np.log2(0.1))
    assert histogram_entropy(w, 8) == pytest.approx(expected)


@pytest.mark.parametrize("K", [3, 50, 256, 1000])
def test_matches_scipy_on_numpys_histogram(rng, K):
    w = rng.standard_t(3, size=(300, 7))
    counts, _ = np.histogram(w, bins=K)  # bins over [min, max], as the paper's remark says
    assert histogram_entropy(w, K) == pytest.approx(scipy.stats.entropy(counts, base=2), abs=1e-12)
    assert np.array_equal(histogram_counts(w, K), counts)


def test_per_slice_equals_a_loop_of_np_histogram(rng):
    # rounded values put many points exactly on bin edges: the vectorised path must agree anyway
    X = np.round(rng.standard_normal((40, 123)), 1)
    X[5] = 2.5  # a constant row
    for K in (1, 7, 10, 256):
        counts = histogram_counts(X, K, axis=1)
        assert counts.shape == (40, K)
        for i in range(len(X)):
            assert np.array_equal(counts[i], np.histogram(X[i], bins=K)[0]), (K, i)
        H = histogram_entropy(X, K, axis=1)
        assert H.shape == (40,) and H[5] == 0.0
        assert H == pytest.approx([scipy.stats.entropy(np.histogram(x, K)[0], base=2) for x in X])


def test_axis_zero_gives_column_entropies(rng):
    W = rng.standard_normal((500, 10)) * np.arange(1, 11)
    H = histogram_entropy(W, 64, axis=0)
    assert H.shape == (10,)
    assert H == pytest.approx([histogram_entropy(W[:, j], 64) for j in range(10)])
    assert histogram_entropy(W.reshape(50, 10, 10), 64, axis=1).shape == (50, 10)


@pytest.mark.parametrize("scale, shift", [(3.7, -1.2), (1e-4, 5.0), (-2.0, 0.0), (2.0**10, 1.0)])
def test_invariant_to_affine_rescaling(rng, scale, shift):
    w = rng.standard_normal(20_000)
    for K in (16, 256):
        # edges move with the data; only values within rounding of an edge could change bin
        assert histogram_entropy(scale * w + shift, K) == pytest.approx(histogram_entropy(w, K), abs=1e-3)
    assert quantile_symmetry(scale * w + shift) == pytest.approx(quantile_symmetry(w), abs=1e-9)
    assert hoyer_sparsity(scale * w) == pytest.approx(hoyer_sparsity(w))


def test_bounded_by_log2_of_bins_and_of_sample_size(rng):
    for n, K in ((10, 256), (1000, 16), (5000, 4096)):
        h = histogram_entropy(rng.standard_normal(n), K)
        assert 0 <= h <= np.log2(min(n, K)) + 1e-12


def test_entropy_grows_with_K(rng):
    w = rng.standard_normal(50_000)
    H = [histogram_entropy(w, K) for K in (8, 16, 32, 64, 128, 256)]
    assert np.all(np.diff(H) > 0.9)  # ≈ +1 bit per doubling for a smooth density


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("w, match", [
    (np.array([]), "empty"),
    (np.zeros((3, 0)), "empty"),
    (np.array([1.0, np.nan]), "NaN or infinite"),
    (np.array([1.0, np.inf, 2.0]), "NaN or infinite"),
    ([[1.0, "x"]], "real numbers"),
])
def test_bad_weights_raise_with_message(w, match):
    with pytest.raises((ValueError, TypeError), match=match):
        histogram_entropy(w, 10)


@pytest.mark.parametrize("bins", [0, -3, 2.5, "auto", None, True])
def test_bad_bins_raise_with_message(bins):
    with pytest.raises(ValueError, match="bins .* integer >= 1"):
        histogram_entropy(np.arange(10.0), bins)


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="out of bounds"):
        histogram_entropy(np.ones((3, 4)), 4, axis=2)
    with pytest.raises(ValueError, match="all-zero"):
        hoyer_sparsity(np.zeros(5))
    with pytest.raises(ValueError, match="at least 2"):
        hoyer_sparsity(np.ones(1))
    with pytest.raises(ValueError, match="exceeds"):
        matched_entropy(np.ones(10), n=11)
    with pytest.raises(ValueError, match="tol"):
        near_zero_fraction(np.ones(3), tol=0)
    with pytest.raises(ValueError, match="sum to zero"):
        entropy_from_counts([0, 0])
    with pytest.raises(ValueError, match="empty"):
        weight_statistics({})
    with pytest.raises(ValueError, match="matrix"):
        weight_statistics({"v": np.ones(5)})


# ----------------------------------------------------------------------------- companions
def test_quantile_symmetry(rng):
    assert quantile_symmetry(rng.standard_normal(4000)) > 0.99
    assert quantile_symmetry(rng.uniform(-1, 1, 4000)) > 0.99
    assert quantile_symmetry(np.array([-2.0, 0.0, 1.0, 1.0])) < 1
    assert quantile_symmetry(np.full(9, 4.0)) == 1.0
    skewed = quantile_symmetry(rng.exponential(size=4000))
    assert 0 < skewed < 0.8
    # 80 % zeros, 20 % ones: G = 0.25 by hand
    assert quantile_symmetry(np.r_[np.zeros(80), np.ones(20)]) == pytest.approx(0.25)
    G = quantile_symmetry(np.stack([rng.standard_normal(500), rng.exponential(size=500)]), axis=1)
    assert G.shape == (2,) and G[0] > G[1]


def test_hoyer_and_near_zero(rng):
    one_hot = np.zeros(100)
    one_hot[7] = -3.0
    assert hoyer_sparsity(one_hot) == pytest.approx(1.0)
    assert hoyer_sparsity(np.full(100, -2.0)) == pytest.approx(0.0, abs=1e-12)
    assert hoyer_sparsity(rng.standard_normal(200_000)) == pytest.approx(1 - np.sqrt(2 / np.pi), abs=5e-3)
    assert near_zero_fraction(one_hot) == pytest.approx(0.99)
    assert near_zero_fraction(np.array([1.0, 0.005, -0.5]), tol=0.01) == pytest.approx(1 / 3)
    assert hoyer_sparsity(np.stack([one_hot, np.ones(100)]), axis=1) == pytest.approx([1.0, 0.0])


def test_matched_and_gaussian_references(rng):
    w = rng.standard_normal(50_000)
    m = matched_entropy(w, 640, 256, draws=30, seed=3)
    g = gaussian_entropy(640, 256, draws=30, seed=4)
    assert m.shape == g.shape == (30,)
    assert abs(m.mean() - g.mean()) < 3 * np.hypot(m.std(), g.std()) / np.sqrt(30) + 0.05
    assert np.array_equal(matched_entropy(w, 640, 256, 5, seed=1), matched_entropy(w, 640, 256, 5, seed=1))


def test_weight_statistics_table(rng):
    sets = {"gauss": rng.standard_normal((300, 10)), "sparse": rng.standard_normal((784, 10))
            * (rng.random((784, 10)) < 0.05)}
    table = weight_statistics(sets, bins=(16, 256), n_match=5000, draws=5)
    assert list(table["set"]) == ["gauss", "gauss", "sparse", "sparse"]
    assert set(table.columns) >= {"entropy", "column_entropy", "matched_entropy", "gaussian_entropy",
                                  "gaussian_matched_entropy", "symmetry", "hoyer", "near_zero"}
    g = table[(table.set == "gauss") & (table.bins == 256)].iloc[0]
    s = table[(table.set == "sparse") & (table.bins == 256)].iloc[0]
    assert g.entropy == pytest.approx(histogram_entropy(sets["gauss"], 256))
    assert np.isnan(g.matched_entropy) and np.isfinite(s.matched_entropy)  # 3000 < 5000 <= 7840
    assert s.hoyer > g.hoyer and s.near_zero > 0.9 and s.entropy < g.entropy


def test_linear_weights_reads_torch_layers_as_in_by_out():
    torch = pytest.importorskip("torch")
    from torch import nn

    mlp = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 3))
    got = linear_weights(mlp, prefix="mlp.")
    assert list(got) == ["mlp.0", "mlp.2"]
    assert got["mlp.0"].shape == (6, 4) and got["mlp.2"].shape == (4, 3)
    assert np.array_equal(got["mlp.2"], mlp[2].weight.detach().numpy().T.astype(np.float64))
    assert list(linear_weights(nn.Linear(5, 2))) == [""]
    with pytest.raises(ValueError, match="no nn.Linear"):
        linear_weights(nn.ReLU())
    del torch


def test_one_matrix_decidedly_lower_refutes_every_and_indistinguishable_ones_decide_nothing():
    from greenelm_book.chapters.entropy import comparison_counts, every_comparison

    assert every_comparison(["higher", "higher"]) is True
    assert every_comparison(["indistinguishable", "lower", "indistinguishable"]) is False
    assert every_comparison(["higher", "indistinguishable"]) is None
    assert comparison_counts(["indistinguishable", "lower", "indistinguishable"]) == (
        "higher than 0, lower than 1, indistinguishable from 2")


def test_the_near_zero_share_is_set_against_a_gaussian_by_its_interval_over_seeds():
    """"more than the 3.0 % of a Gaussian" is said only where the 95 % interval of the mean over seeds lies
    above it; seeds that spread across it decide nothing."""
    from greenelm_book.chapters.entropy import NEAR_ZERO_WORDS, near_zero_side

    assert near_zero_side([0.099, 0.173, 0.194, 0.104, 0.272], 3.0) is True
    assert near_zero_side([0.010, 0.012, 0.011], 3.0) is False
    assert near_zero_side([0.01, 0.05, 0.02, 0.06], 3.0) is None
    assert NEAR_ZERO_WORDS[None].startswith("on neither side") and NEAR_ZERO_WORDS[True].startswith("more than")
