"""Companion entries in library/distributions.py and distribution_transforms.py: torch
qualified name -> entry name. torch exports each class from ``torch.distributions`` and from the
submodule that defines it; both spellings map to the entry."""

D = "torch.distributions."

# entry -> the torch.distributions submodule that defines it
_DEFINED_IN = {
    "Distribution": "distribution",
    "Normal": "normal",
    "LogNormal": "log_normal",
    "Cauchy": "cauchy",
    "Laplace": "laplace",
    "Uniform": "uniform",
    "Exponential": "exponential",
    "Gamma": "gamma",
    "Chi2": "chi2",
    "Dirichlet": "dirichlet",
    "Beta": "beta",
    "StudentT": "studentT",
    "Bernoulli": "bernoulli",
    "Binomial": "binomial",
    "Geometric": "geometric",
    "Categorical": "categorical",
    "Poisson": "poisson",
    "MultivariateNormal": "multivariate_normal",
    "Independent": "independent",
    "kl_divergence": "kl",
    "Transform": "transforms",
    "ExpTransform": "transforms",
    "PowerTransform": "transforms",
    "SigmoidTransform": "transforms",
    "TanhTransform": "transforms",
    "SoftplusTransform": "transforms",
    "AbsTransform": "transforms",
    "AffineTransform": "transforms",
    "SoftmaxTransform": "transforms",
    "LowerCholeskyTransform": "transforms",
    "PositiveDefiniteTransform": "transforms",
    "ReshapeTransform": "transforms",
    "IndependentTransform": "transforms",
    "ComposeTransform": "transforms",
    "CatTransform": "transforms",
    "StackTransform": "transforms",
    "CumulativeDistributionTransform": "transforms",
}

ENTRIES: dict[str, str] = {}
for _entry, _module in _DEFINED_IN.items():
    ENTRIES[D + _entry] = _entry
    ENTRIES[f"{D}{_module}.{_entry}"] = _entry
ENTRIES[D + "constraints.positive_definite"] = "positive_definite"
