"""kern for Python: scikit-learn-compatible kernel estimators over the kern Rust crates.

Estimators: `SVC`, `NuSVC`, `SVR`, `NuSVR`, `OneClassSVM`, `RailwaySVC`, `KernelRidge`, `LSSVC`, `LSSVR`, `KernelPCA`,
`NystroemKernelPCA`, `FeatureVectorSelection`. Helpers: `gram`, `bandwidth`, `support_radius`,
`set_memory_limit`.

Kernels are given as in scikit-learn (``kernel="rbf", gamma=0.5``; "linear", "poly", "sigmoid") or as
kern kernel specs (``kernel="cs-gaussian:sigma=0.6,c=2.2,nu=3"``). Inputs are NumPy arrays (read-only
and memory-mapped too) or SciPy CSR/CSC matrices; fitting and prediction release the GIL and run on
`n_jobs` threads (by default the CPUs the process may use, within the limits joblib and threadpoolctl
set). An allocation larger than the memory available raises `MemoryError`.
"""

from ._helpers import bandwidth, gram, set_memory_limit, support_radius
from ._kern import __version__
from .decomposition import FeatureVectorSelection, KernelPCA, NystroemKernelPCA
from .ridge import LSSVC, LSSVR, KernelRidge
from .svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM, RailwaySVC

__all__ = [
    "SVC",
    "SVR",
    "NuSVC",
    "NuSVR",
    "OneClassSVM",
    "RailwaySVC",
    "KernelRidge",
    "LSSVC",
    "LSSVR",
    "KernelPCA",
    "NystroemKernelPCA",
    "FeatureVectorSelection",
    "gram",
    "bandwidth",
    "support_radius",
    "set_memory_limit",
]
