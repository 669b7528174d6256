"""greenelm.distributed: the Dask map-reduce fit equals the single-machine fit.

Checked on the threaded scheduler for several block layouts (ragged last block, one block,
column-chunked X, y chunked differently from X), on a LocalCluster of two worker processes,
and with a worker that kills itself mid-fit (the scheduler reschedules its task). Bad blocks
raise errors naming the block.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from greenelm import ELMClassifier, ELMRegressor  # noqa: E402
from greenelm.distributed import FeatureSpec, fit_dask, sufficient_statistics  # noqa: E402

N, D, D_HIDDEN = 503, 20, 64


def _params(**extra):
    return dict(n_hidden=D_HIDDEN, chunk_size=50, random_state=3, **extra)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, D))
    y = rng.choice(np.array([2, 5, 7]), size=N)
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] ** 2])
    return X, y, Y


@pytest.fixture(scope="module")
def reference(data):
    X, y, _ = data
    return ELMClassifier(**_params()).fit(X, y)


def assert_same_fit(model, ref):
    """Every fitted attribute of a normal fit, equal up to summation order."""
    assert type(model) is type(ref)
    assert model.seed_ == ref.seed_ and model.n_features_in_ == ref.n_features_in_
    assert model.n_outputs_ == ref.n_outputs_
    assert model.equations_.n_samples == ref.equations_.n_samples
    upper = np.triu_indices(ref.n_hidden)
    np.testing.assert_allclose(model.equations_.gram[upper], ref.equations_.gram[upper], rtol=1e-12,
                               atol=1e-9)
    np.testing.assert_allclose(model.equations_.hty, ref.equations_.hty, rtol=1e-12, atol=1e-9)
    scale = np.abs(ref.coef_).max()
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=0, atol=1e-9 * scale)
    if hasattr(ref, "classes_"):
        np.testing.assert_array_equal(model.classes_, ref.classes_)


LAYOUTS = {
    "one block": ((N, D), N),
    "ragged last block": ((100, D), 100),          # 5 × 100 + 3
    "y chunked differently": ((128, D), 37),
    "column-chunked X": ((77, 7), 77),
    "row per block at the end": ((251, D), 251),   # 251 + 251 + 1
}


@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
def test_threaded_fit_equals_single_machine(data, reference, layout):
    X, y, _ = data
    x_chunks, y_chunks = LAYOUTS[layout]
    model = fit_dask(ELMClassifier(**_params()), da.from_array(X, chunks=x_chunks),
                     da.from_array(y, chunks=y_chunks), scheduler="threads")
    assert_same_fit(model, reference)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))


def test_fit_dask_accepts_known_classes_and_numpy_inputs(data, reference):
    X, y, _ = data
    model = fit_dask(ELMClassifier(**_params()), X, y, classes=[7, 2, 5], scheduler="sync")
    assert_same_fit(model, reference)


@pytest.mark.parametrize("solver", ["lu", "eigh"])
def test_other_solvers_and_float32(data, solver):
    X, y, _ = data
    params = _params(solver=solver, dtype="float32")
    ref = ELMClassifier(**params).fit(X, y)
    model = fit_dask(ELMClassifier(**params), da.from_array(X, chunks=90), da.from_array(y, chunks=90))
    assert model.equations_.gram.dtype == np.float64  # float32 features, float64 sums across tasks
    assert model.equations_.dtype == "float32"
    np.testing.assert_allclose(model.coef_, ref.coef_, atol=1e-3 * np.abs(ref.coef_).max())
    assert np.mean(model.predict(X) == ref.predict(X)) > 0.99


def test_regressor_multi_and_single_output(data):
    X, _, Y = data
    for targets in (Y, Y[:, 0]):
        ref = ELMRegressor(**_params()).fit(X, targets)
        model = fit_dask(ELMRegressor(**_params()), da.from_array(X, chunks=100),
                         da.from_array(targets, chunks=100))
        assert_same_fit(model, ref)
        assert model.predict(X).shape == targets.shape


def test_torch_device_path(data, reference):
    pytest.importorskip("torch")
    X, y, _ = data
    model = fit_dask(ELMClassifier(**_params(device="cpu")), da.from_array(X, chunks=100),
                     da.from_array(y, chunks=100))
    np.testing.assert_allclose(model.coef_, reference.coef_, atol=1e-9 * np.abs(reference.coef_).max())


def test_partial_fit_continues_after_fit_dask(data, reference):
    X, y, _ = data
    model = fit_dask(ELMClassifier(**_params()), da.from_array(X[:300], chunks=100),
                     da.from_array(y[:300], chunks=100))
    model.partial_fit(X[300:], y[300:])
    np.testing.assert_allclose(model.coef_, reference.coef_, atol=1e-9 * np.abs(reference.coef_).max())


def test_projection_is_not_shipped_in_the_graph(data):
    """Tasks carry the seed, not W: the pickled graph is far smaller than W (784 × 2000)."""
    cloudpickle = pytest.importorskip("cloudpickle")
    X = da.zeros((40_000, 784), chunks=(10_000, 784))
    y = da.zeros(40_000, chunks=10_000, dtype=int)
    spec = FeatureSpec(784, 2000, seed=0)
    lazy = sufficient_statistics(X, y, spec, classes=np.array([0, 1]))
    graph_bytes = len(cloudpickle.dumps(dict(lazy.__dask_graph__())))
    assert graph_bytes < 784 * 2000 * 8 / 100


def test_two_fits_in_one_graph_do_not_share_keys(data):
    """Each fit's tasks are named by a hash of its inputs, so fits computed together stay apart."""
    import dask

    X, y, _ = data
    spec = FeatureSpec(D, D_HIDDEN, seed=3)
    Xd, yd = da.from_array(X, chunks=100), da.from_array(y, chunks=100)
    one, two = dask.compute(sufficient_statistics(Xd, yd, spec, 50, np.unique(y)),
                            sufficient_statistics(2 * Xd, yd, spec, 50, np.unique(y)))
    reference = ELMClassifier(**_params()).fit(X, y).equations_
    np.testing.assert_allclose(one[:, D_HIDDEN:], reference.hty, rtol=1e-12)
    assert not np.allclose(one, two)


# --------------------------------------------------------------------------------- bad input
def _bad_width_array():
    import dask

    good = da.from_array(np.ones((10, 4)), chunks=10)
    liar = da.from_delayed(dask.delayed(np.ones)((10, 5)), shape=(10, 4), dtype=float)
    return da.concatenate([good, liar])


@pytest.mark.parametrize("case, message", [
    ("nan", r"block 2 \(rows 200:300\): X holds NaN or inf values \(first in row 217\)"),
    ("inf", r"block 4 \(rows 400:500\): X holds NaN or inf values \(first in row 499\)"),
    ("width", r"block 1 \(rows 10:20\): X block has shape \(10, 5\), expected \(10, 4\)"),
])
def test_bad_blocks_name_the_block(data, case, message):
    X, y, _ = data
    X = X.copy()
    if case == "nan":
        X[217, 3] = np.nan
    elif case == "inf":
        X[499, 0] = -np.inf
    if case == "width":
        Xd, yd = _bad_width_array(), da.from_array(np.arange(20) % 2, chunks=10)
    else:
        Xd, yd = da.from_array(X, chunks=100), da.from_array(y, chunks=100)
    with pytest.raises(ValueError, match=message):
        fit_dask(ELMClassifier(**_params()), Xd, yd, scheduler="threads")


def test_bad_targets_and_labels(data):
    X, y, Y = data
    Xd = da.from_array(X, chunks=100)
    Y = Y.copy()
    Y[305, 1] = np.nan
    with pytest.raises(ValueError, match=r"block 3 \(rows 300:400\): y holds NaN or inf .*row 305"):
        fit_dask(ELMRegressor(**_params()), Xd, da.from_array(Y, chunks=100))
    y = y.copy()
    y[412] = 9
    with pytest.raises(ValueError, match=r"block 4 \(rows 400:500\): y contains labels \[9\] not in"):
        fit_dask(ELMClassifier(**_params()), Xd, da.from_array(y, chunks=100), classes=[2, 5, 7])


@pytest.mark.parametrize("kwargs, X_shape, y_shape, message", [
    ({"solver": "pinv"}, (N, D), (N,), "cannot use solver='pinv'"),
    ({}, (N, D), (N - 1,), r"one row per row of X \(503\)"),
    ({}, (N, D), (N, 2), "1-D labels"),
    ({}, (N,), (N,), "X must be 2-D"),
])
def test_bad_arguments(data, kwargs, X_shape, y_shape, message):
    X, y, _ = data
    Xd = da.from_array(X[:, 0] if len(X_shape) == 1 else X, chunks=100)
    yd = da.from_array(np.resize(y, y_shape), chunks=100)
    with pytest.raises(ValueError, match=message):
        fit_dask(ELMClassifier(**_params(**kwargs)), Xd, yd)


def test_unknown_chunk_sizes_and_single_class(data):
    X, y, _ = data
    Xd = da.from_array(X, chunks=100)
    unknown = Xd[Xd[:, 0] > -np.inf]          # boolean indexing: row chunks become unknown
    with pytest.raises(ValueError, match="unknown chunk sizes.*lengths=True"):
        fit_dask(ELMClassifier(**_params()), unknown, da.from_array(y, chunks=100), classes=[2, 5, 7])
    with pytest.raises(ValueError, match="at least 2 classes"):
        fit_dask(ELMClassifier(**_params()), Xd, da.zeros(N, chunks=100, dtype=int))


# ------------------------------------------------------------------------- dask.distributed
@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    try:
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, host="127.0.0.1")
        client = distributed.Client(cluster)
    except Exception as error:  # pragma: no cover - sandboxes without process spawning
        pytest.skip(f"dask.distributed LocalCluster cannot start here: {error}")
    # test helpers travel by value: the workers cannot import this test module
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield client
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    client.close()
    cluster.close()


@pytest.mark.parametrize("layout", ["ragged last block", "one block", "column-chunked X"])
def test_local_cluster_fit_equals_single_machine(data, reference, cluster, layout):
    X, y, _ = data
    x_chunks, y_chunks = LAYOUTS[layout]
    model = fit_dask(ELMClassifier(**_params()), da.from_array(X, chunks=x_chunks),
                     da.from_array(y, chunks=y_chunks), client=cluster)
    assert_same_fit(model, reference)
    pids = cluster.run(os.getpid)
    assert len(set(pids.values()) - {os.getpid()}) == 2  # really two other processes


def _die_once(block, marker):
    """Kill this worker process the first time any block is computed (marker file absent)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return block
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    os._exit(1)


def test_worker_killed_mid_fit_is_retried(data, reference, cluster, tmp_path):
    X, y, _ = data
    marker = tmp_path / "killed-once"
    before = set(cluster.run(os.getpid).values())
    Xd = da.from_array(X, chunks=100).map_blocks(_die_once, marker=str(marker), dtype=X.dtype,
                                                   meta=np.empty((0, 0)))  # no test call here
    model = fit_dask(ELMClassifier(**_params()), Xd, da.from_array(y, chunks=100), client=cluster,
                     classes=np.unique(y), retries=1)
    assert marker.exists()
    killed = int(marker.read_text())
    assert killed in before and killed != os.getpid()   # a worker process died, not the client
    assert_same_fit(model, reference)
    cluster.wait_for_workers(2, timeout=30)              # the nanny restarts it
    assert killed not in set(cluster.run(os.getpid).values())
