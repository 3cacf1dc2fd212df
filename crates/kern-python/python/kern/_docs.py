"""numpydoc docstrings of kern's estimators (the support vector machines, `KernelRidge`,
`KernelPCA`), built from one description of each parameter and fitted attribute (the estimators
share most of them)."""

import inspect
import textwrap

# The kernels scikit-learn's pairwise kernels name, as `KernelRidge` and `KernelPCA` take them.
_PAIRWISE_KERNELS = (
    "'linear', 'rbf', 'poly', 'sigmoid', 'laplacian' (``exp(-gamma ||x - y||_1)``), 'chi2' "
    "(``exp(-gamma sum (x - y)^2 / (x + y))``, nonnegative features only), 'cosine'"
)


def _entry(head, text):
    """A parameter entry: `head`, then `text` wrapped and indented under it."""
    return head + "\n" + textwrap.fill(
        text, width=100, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False
    )


# What the automatic values share: where and how they are chosen.
_AUTO_CV = (
    "chosen at `fit` by 5-fold cross-validation on the training samples (folds seeded by "
    "`random_state`, or 0; on a seeded subsample of 3,000 beyond that many samples; sample weights "
    "are not read by the search, only by the final fit)"
)

PARAMS = {
    "C": _entry(
        "C : float or 'auto', default=1.0",
        "Regularization: the bound on each dual variable (larger fits the training data more closely). "
        "Must be positive. 'auto': " + _AUTO_CV + " over ``10**-1, 10**-0.5, ..., 10**3`` (accuracy or "
        "mean squared error; ties to the smaller C; extended upwards by up to four half-decades while "
        "the largest value is best). The value trained with is `C_`.",
    ),
    "C_fixed": """C : float, default=1.0
    Regularization: the bound on each dual variable (larger fits the training data more closely).
    Must be positive.""",
    "nu": """nu : float, default=0.5
    In (0, 1]: an upper bound on the fraction of margin errors and a lower bound on the fraction of
    support vectors.""",
    "nu_auto": _entry(
        "nu : float or 'auto', default=0.5",
        "In (0, 1]: an upper bound on the fraction of margin errors and a lower bound on the fraction "
        "of support vectors. 'auto': " + _AUTO_CV + " over ``0.05, 0.1, 0.2, ..., 0.8`` (values "
        "infeasible for the classes' sizes, or without a margin, left out; ties to the larger nu). The "
        "value trained with is `nu_`.",
    ),
    "kernel": """kernel : str, default='rbf'
    'linear', 'poly', 'rbf', 'sigmoid', 'precomputed', or a kern kernel spec such as
    ``"cs-gaussian:sigma=0.6,c=2.2,nu=3"`` (then `gamma`, `degree` and `coef0` are not read). With
    'precomputed', `fit` takes the ``(n_samples, n_samples)`` kernel matrix of the training samples
    and the other methods the ``(n_queries, n_samples)`` matrix ``K(X, X_train)``.""",
    "degree": """degree : int, default=3
    Degree of the 'poly' kernel.""",
    "gamma": _entry(
        "gamma : {'scale', 'auto', 'mean-to-half', 'max-variance', 'ahn', 'median'} or float, "
        "default='scale'",
        "Kernel coefficient of 'rbf', 'poly' and 'sigmoid': 'scale' is ``1 / (n_features * X.var())``, "
        "'auto' ``1 / n_features``. For 'rbf', the width can also be chosen at `fit` on the training "
        "samples, without labels or cross-validation: 'mean-to-half' (the mean similarity "
        "``exp(-gamma ||x_i - x_j||^2)`` over pairs is 1/2), 'max-variance' (the similarities vary "
        "most), 'ahn' (Ahn's class separation; classifiers only) or 'median' (``1 / median "
        "||x_i - x_j||^2``); over all pairs up to 5,000 samples, beyond that of a subsample seeded by "
        "`random_state`. The value used is `gamma_`.",
    ),
    "gamma_unlabelled": _entry(
        "gamma : {'scale', 'auto', 'mean-to-half', 'max-variance', 'median'} or float, default='scale'",
        "Kernel coefficient of 'rbf', 'poly' and 'sigmoid': 'scale' is ``1 / (n_features * X.var())``, "
        "'auto' ``1 / n_features``. For 'rbf', the width can also be chosen at `fit` on the training "
        "samples, without cross-validation: 'mean-to-half' (the mean similarity "
        "``exp(-gamma ||x_i - x_j||^2)`` over pairs is 1/2), 'max-variance' (the similarities vary "
        "most) or 'median' (``1 / median ||x_i - x_j||^2``); over all pairs up to 5,000 samples, "
        "beyond that of a seeded subsample. ('ahn' needs class labels: a ValueError here.) The value "
        "used is `gamma_`.",
    ),
    "coef0": """coef0 : float, default=0.0
    Independent term of 'poly' and 'sigmoid'.""",
    "shrinking": """shrinking : bool, default=True
    Whether the solver leaves out variables that are unlikely to change (faster, same optimum).""",
    "probability": """probability : bool, default=False
    Whether to fit Platt sigmoids (by internal 5-fold cross-validation, seeded by `random_state`) for
    `predict_proba`.""",
    "tol": """tol : float, default=1e-3
    Stopping tolerance on the largest violation of the optimality conditions.""",
    "cache_size": """cache_size : float, default=200
    Kernel column cache, in MB.""",
    "class_weight": """class_weight : dict or 'balanced', default=None
    Multiplies `C` of the samples of a class: ``{label: weight}``, or 'balanced' (``n_samples /
    (n_classes * np.bincount(y))``). `None`: weight 1 for every class.""",
    "max_iter": """max_iter : int, default=-1
    The most solver iterations; -1 for kern's default cap (``max(10**7, 100 * n_samples)``). When
    the cap stops the solver first, `fit_status_` is 1 and a `ConvergenceWarning` is issued.""",
    "decision_function_shape": """decision_function_shape : {'ovr', 'ovo'}, default='ovr'
    Shape of `decision_function` for more than two classes: one column per class ('ovr') or per
    pair of classes ('ovo'). Training is one-vs-one either way.""",
    "random_state": """random_state : int, RandomState instance or None, default=None
    Seed of the probability cross-validation and of the automatic choices (the folds of C='auto' and
    nu='auto', the subsample of the width methods). `None` is a fixed seed: kern is deterministic.""",
    "n_jobs": """n_jobs : int, default=None
    Threads kern trains and predicts with. `None`: the CPUs this process may use, lowered to the
    limits joblib and threadpoolctl set (``OMP_NUM_THREADS`` in the workers of
    ``GridSearchCV(n_jobs=k)``, ``threadpoolctl.threadpool_limits``), so parallel grid searches do
    not oversubscribe the CPUs. A count above the CPUs is lowered to them with a `UserWarning`;
    ``-1`` means all CPUs, ``-2`` all but one, as in scikit-learn.""",
    "epsilon": """epsilon : float, default=0.1
    Half-width of the tube in which errors are not penalized. Must be non-negative.""",
    "railway_gamma": """gamma : float, default=2.0
    Sharpness of the area indicators, relative to each area's radius (``gamma / r**2``): larger
    gives sharper area borders, so that fewer areas overlap at a sample.""",
    "significance": """significance : float, default=0.05
    Level of the purity test that accepts an area.""",
    "pairwise_kernel": _entry(
        'kernel : str or callable, default="linear"',
        _PAIRWISE_KERNELS + ", a kern kernel spec string, 'precomputed' (`X` is the kernel matrix: "
        "``K(X, X_fit)`` in the other methods), or a callable ``kernel(x, y, **kernel_params) -> float`` "
        "evaluated as scikit-learn does.",
    ),
    "pairwise_gamma": _entry(
        "gamma : float, {'mean-to-half', 'max-variance', 'median'}, default=None",
        "Kernel rate of 'rbf', 'poly', 'sigmoid' and 'laplacian'; None means ``1 / n_features``. For "
        "'chi2', None means 1. For 'rbf', the width can also be chosen at `fit` on the training "
        "samples: 'mean-to-half' (the mean similarity ``exp(-gamma ||x_i - x_j||^2)`` over pairs is "
        "1/2), 'max-variance' (the similarities vary most) or 'median' (``1 / median "
        "||x_i - x_j||^2``), as `SVC`'s. The value used is `gamma_`.",
    ),
    "ridge_gamma": _entry(
        "gamma : float, {'mean-to-half', 'max-variance', 'median', 'loo'}, default=None",
        "Kernel rate of 'rbf', 'poly', 'sigmoid' and 'laplacian'; None means ``1 / n_features``. For "
        "'chi2', None means 1. For 'rbf', the width can also be chosen at `fit` on the training "
        "samples: 'mean-to-half' (the mean similarity ``exp(-gamma ||x_i - x_j||^2)`` over pairs is "
        "1/2), 'max-variance' (the similarities vary most) or 'median' (``1 / median "
        "||x_i - x_j||^2``), as `SVC`'s; or 'loo', with alpha='auto' only: the 'mean-to-half' width "
        "widened together with alpha by exact leave-one-out (the width times 1, 2, 4, 8 or 16, each "
        "with its best alpha; the smallest mean squared leave-one-out residual wins; on a seeded "
        "subsample of 1,000 beyond that many samples, whose alpha the model then takes; one target "
        "column; `width_search_`). The value used is `gamma_`.",
    ),
    "pairwise_coef0": """coef0 : float, default=1
    Constant of the 'poly' and 'sigmoid' kernels.""",
    "k_max": """k_max : int, default=10
    The most clusters tried per class when locating the areas. More clusters fit finer class shapes
    but overlap more: kern refuses a sample where more than 12 areas overlap (ValueError).""",
}

ATTRIBUTES = {
    "gamma_": """gamma_ : float
    The gamma the kernel used: the number given, 'scale' or 'auto' worked out, or the width chosen
    on the training samples; NaN for a kernel without gamma ('linear', 'precomputed', a kern spec
    string: see `kernel_spec_`).""",
    "width_search_": """width_search_ : dict
    Only after a width search (gamma='loo', or a Gaussian width written ``auto`` with alpha='auto'):
    ``factor``, the chosen factor of the mean-to-half width; ``curve``, one ``(factor, alpha,
    loo_error)`` per factor tried (each factor's best alpha and its leave-one-out error); ``points``,
    the samples searched (at most 1,000: a seeded subsample beyond); ``seconds``, the search's wall
    time; ``alpha``, the chosen factor's best alpha; ``model_kept``, whether the model is the one the
    search returned, not trained again: its own fit at the chosen width when it searched all the
    samples, else its fit on all of them at the chosen width and ``alpha`` (then `alpha_`).""",
    "C_": """C_ : float
    The C trained with: `C`, or the value chosen for C='auto'.""",
    "nu_": """nu_ : float
    The nu trained with: `nu`, or the value chosen for nu='auto'.""",
    "classes_": """classes_ : ndarray of shape (n_classes,)
    The class labels.""",
    "class_weight_": """class_weight_ : ndarray of shape (n_classes,)
    The weight of each class (ones without `class_weight`).""",
    "n_features_in_": """n_features_in_ : int
    Number of features seen during `fit`.""",
    "support_": """support_ : ndarray of shape (n_SV,)
    Indices of the support vectors in the training samples.""",
    "support_vectors_": """support_vectors_ : ndarray of shape (n_SV, n_features)
    The support vectors (empty for kernel='precomputed').""",
    "n_support_": """n_support_ : ndarray of shape (n_classes,), dtype=int32
    Number of support vectors of each class.""",
    "n_support_1": """n_support_ : ndarray of shape (1,), dtype=int32
    Number of support vectors.""",
    "dual_coef_": """dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
    Dual coefficients of the support vectors in the decision functions, in scikit-learn's
    one-vs-one layout and signs.""",
    "dual_coef_1": """dual_coef_ : ndarray of shape (1, n_SV)
    Coefficients of the support vectors in the decision function.""",
    "intercept_": """intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    Constants of the decision functions.""",
    "intercept_1": """intercept_ : ndarray of shape (1,)
    Constant of the decision function.""",
    "probA_": """probA_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    Platt sigmoid slope of each pair of classes, in LIBSVM's convention ``P = 1 / (1 + exp(probA_ * f
    + probB_))``; empty without `probability`.""",
    "probB_": """probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    Platt sigmoid offsets; empty without `probability`.""",
    "fit_status_": """fit_status_ : int
    0 when the solver met its tolerance, 1 when the iteration cap stopped it first.""",
    "shape_fit_": """shape_fit_ : tuple of int
    Shape of the training `X`.""",
    "n_iter_": """n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,), dtype=int32
    Solver iterations of each binary machine.""",
    "n_iter_1": """n_iter_ : int
    Solver iterations.""",
    "kernel_spec_": """kernel_spec_ : str
    The kern kernel spec trained with (for example ``"gaussian:gamma=0.5"``).""",
    "fit_plan_": """fit_plan_ : list of dict
    The path each machine's solve took (keys: order, start, columns, cache_mb, sparse_columns,
    selection, threading, shrinking).""",
    "offset_": """offset_ : float
    ``score_samples - decision_function`` (``-intercept_[0]``).""",
    "n_areas_": """n_areas_ : int
    Number of areas located.""",
    "n_zones_": """n_zones_ : int
    Number of zones (combinations of overlapping areas) of the explicit feature map.""",
}


def _lookup(table, item):
    """The shared entry named `item`, or `item` itself when it is an entry (several lines): the
    estimator's own."""
    return item if "\n" in item else table[item]


def numpydoc(summary, params, attributes, examples, see_also=None):
    """A numpydoc class docstring from the shared parameter and attribute entries (an item of
    `params` or `attributes` is the name of a shared entry or an entry of its own); the summary and
    the examples, written indented in the source, are dedented to the entries' margin."""

    def decorate(cls):
        parts = [
            inspect.cleandoc(summary),
            "Parameters\n----------\n" + "\n".join(_lookup(PARAMS, p) for p in params),
            "Attributes\n----------\n" + "\n".join(_lookup(ATTRIBUTES, a) for a in attributes),
        ]
        if see_also:
            parts.append("See Also\n--------\n" + see_also.strip())
        parts.append("Examples\n--------\n" + inspect.cleandoc(examples))
        cls.__doc__ = "\n\n".join(parts) + "\n"
        return cls

    return decorate
