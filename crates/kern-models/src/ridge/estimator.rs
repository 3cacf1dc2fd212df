//! What the LS-SVM ([`crate::lssvm`]) and kernel ridge regression ([`crate::krr`]) share above the
//! engine, written once: the parameters' builder methods, the trained model's accessors, and the
//! `Fit` / `Model` / `WidenFeatures` impls. Both parameter types hold the same fields and both models
//! wrap a [`Fitted`](super::Fitted); each type keeps its own `new` (default λ grid) and `fit_encoded`
//! (bias, weights).

/// Generates the shared methods and impls for the parameter type `$params` and the model `$model`
/// (a tuple struct around [`Fitted`](super::Fitted)) of module `$module` (for the doc examples).
macro_rules! ridge_estimator {
    ($params:ident, $model:ident, $module:literal) => {
        impl $params {
            /// A fixed λ.
            pub fn lambda(mut self, lambda: f64) -> Self {
                self.lambda = $crate::ridge::Lambda::Fixed(lambda);
                self
            }

            /// λ by exact leave-one-out over `grid`.
            pub fn loo(mut self, grid: Vec<f64>) -> Self {
                self.lambda = $crate::ridge::Lambda::Loo(grid);
                self
            }

            /// λ by the error on a tuning set `(x, y)` over `grid`.
            pub fn validation(mut self, grid: Vec<f64>, x: kern_core::Samples, y: kern_core::Targets) -> Self {
                self.lambda = $crate::ridge::Lambda::Validation { grid, x, y };
                self
            }

            /// Forces or frees the path.
            pub fn path(mut self, path: $crate::kmat::PathChoice) -> Self {
                self.path = path;
                self
            }

            /// Sets the grid method.
            pub fn grid_method(mut self, m: $crate::ridge::GridMethod) -> Self {
                self.grid_method = m;
                self
            }

            /// Sets the fill-reducing ordering of the sparse path.
            ///
            #[doc = concat!(
                "```\nuse kern_models::", $module, "::", stringify!($params), ";\n",
                "use kern_sparse::Ordering;\n",
                "let p = ", stringify!($params), "::new(\"cs-gaussian:sigma=1,c=2\".parse()?).ordering(Ordering::Rcm);\n",
                "assert_eq!(p.ordering, Ordering::Rcm);\n",
                "# Ok::<(), kern_core::CoreError>(())\n```"
            )]
            pub fn ordering(mut self, o: kern_sparse::Ordering) -> Self {
                self.ordering = o;
                self
            }

            /// Sets the solver of the sparse path (direct, iterative or auto, with the conjugate-gradient
            /// tolerance and iteration cap).
            ///
            #[doc = concat!(
                "```\nuse kern_models::", $module, "::", stringify!($params), ";\n",
                "use kern_sparse::{SolveOptions, Solver};\n",
                "let o = SolveOptions { solver: Solver::Iterative, ..SolveOptions::default() };\n",
                "let p = ", stringify!($params), "::new(\"cs-gaussian:sigma=1,c=2\".parse()?).solver(o);\n",
                "assert_eq!(p.solver.solver, Solver::Iterative);\n",
                "# Ok::<(), kern_core::CoreError>(())\n```"
            )]
            pub fn solver(mut self, o: kern_sparse::SolveOptions) -> Self {
                self.solver = o;
                self
            }

            /// Chooses the Gaussian width together with λ by exact leave-one-out: this model's kernel
            /// (a Gaussian) `f` times wider for `f` in [`WIDTH_FACTORS`]($crate::ridge::width::WIDTH_FACTORS),
            /// each with its λ selection, on a subsample seeded by `seed` beyond
            /// [`WIDTH_POINTS`]($crate::ridge::width::WIDTH_POINTS) samples ([`crate::ridge::width`]).
            /// Needs λ by leave-one-out (the default).
            ///
            #[doc = concat!(
                "```\nuse kern_core::{RealTargets, Samples, Targets};\n",
                "use kern_models::", $module, "::", stringify!($params), ";\n",
                "let x = Samples::from_flat((0..40).map(|i| i as f64 / 10.0).collect(), 40, 1)?;\n",
                "let y = Targets::Real(RealTargets::new((0..40).map(|i| (i as f64 / 10.0).cos()).collect())?);\n",
                "let p = ", stringify!($params), "::new(\"gaussian:sigma=0.2\".parse()?);\n",
                "let ch = p.choose_width(&x, &y, 0)?;\n",
                "assert_eq!(ch.kernel.to_string(), format!(\"gaussian:sigma={}\", 0.2 * ch.factor));\n",
                "assert!(", stringify!($params), "::new(\"linear\".parse()?).choose_width(&x, &y, 0).is_err());\n",
                "# Ok::<(), Box<dyn std::error::Error>>(())\n```"
            )]
            pub fn choose_width(
                &self,
                x: &kern_core::Samples,
                y: &kern_core::Targets,
                seed: u64,
            ) -> $crate::Result<$crate::ridge::width::WidthChoice> {
                Ok(self.choose_width_with_fit(x, y, seed)?.0)
            }

            /// [`Self::choose_width`], with the model at the chosen width and the seconds its training
            /// took. When the search ran on all of `x` (at most
            /// [`WIDTH_POINTS`]($crate::ridge::width::WIDTH_POINTS) samples), the search's own fit: the
            /// model `fit_targets` gives with the chosen kernel, not trained again. Beyond, the model
            /// trained on all of `x` at the chosen width and the search's λ
            /// ([`WidthChoice::lambda`]($crate::ridge::width::WidthChoice::lambda)), one factorization
            /// ([`crate::ridge::width`]).
            ///
            #[doc = concat!(
                "```\nuse kern_core::{RealTargets, Samples, Targets};\n",
                "use kern_models::", $module, "::", stringify!($params), ";\n",
                "let x = Samples::from_flat((0..40).map(|i| i as f64 / 10.0).collect(), 40, 1)?;\n",
                "let y = Targets::Real(RealTargets::new((0..40).map(|i| (i as f64 / 10.0).cos()).collect())?);\n",
                "let p = ", stringify!($params), "::new(\"gaussian:sigma=0.2\".parse()?);\n",
                "let (ch, m) = p.choose_width_with_fit(&x, &y, 0)?;\n",
                "assert_eq!(ch.curve, p.choose_width(&x, &y, 0)?.curve);\n",
                "let refit = ", stringify!($params), " { kernel: ch.kernel.clone(), ..p }.fit_targets(&x, &y)?;\n",
                "assert!(ch.searched_all(40) && m.0 == refit); // the search ran on all 40 samples\n",
                "# Ok::<(), Box<dyn std::error::Error>>(())\n```"
            )]
            pub fn choose_width_with_fit(
                &self,
                x: &kern_core::Samples,
                y: &kern_core::Targets,
                seed: u64,
            ) -> $crate::Result<($crate::ridge::width::WidthChoice, ($model, f64))> {
                let select = |kernel, xs: &kern_core::Samples, ys: &kern_core::Targets| {
                    let m = $params { kernel, ..self.clone() }.fit_targets(xs, ys)?;
                    let s = m.selection().cloned().ok_or_else(|| {
                        $crate::ModelsError::Input("the width search needs lambda by leave-one-out".into())
                    })?;
                    Ok((s, m))
                };
                let refit = |kernel, lambda| {
                    $params { kernel, lambda: $crate::ridge::Lambda::Fixed(lambda), ..self.clone() }
                        .fit_targets(x, y)
                };
                $crate::ridge::width::choose(&self.kernel, &self.lambda, x, y, seed, select, refit)
            }

            /// Trains on any target kind.
            pub fn fit_targets(&self, x: &kern_core::Samples, y: &kern_core::Targets) -> $crate::Result<$model> {
                self.fit_encoded(x, $crate::ridge::Encoded::any(y))
            }
        }

        impl $model {
            /// The kernel.
            pub fn kernel(&self) -> &kern_core::KernelSpec {
                &self.0.kernel
            }

            /// The λ used (fixed or selected).
            pub fn lambda(&self) -> f64 {
                self.0.lambda
            }

            /// The path the model was trained on.
            pub fn path(&self) -> $crate::kmat::SolvePath {
                self.0.path
            }

            /// What the model predicts.
            pub fn task(&self) -> &$crate::ridge::Task {
                &self.0.task
            }

            /// The λ selection record (grid, errors, chosen index), when λ was selected.
            pub fn selection(&self) -> Option<&$crate::ridge::Selection> {
                self.0.selection.as_ref()
            }

            /// Seconds spent in Cholesky factorizations / the eigendecomposition during training.
            pub fn factor_seconds(&self) -> f64 {
                self.0.factor_seconds.0
            }

            /// The solver the model was trained with: [`Solver::Direct`](kern_sparse::Solver::Direct) or
            /// [`Solver::Iterative`](kern_sparse::Solver::Iterative).
            pub fn solver(&self) -> kern_sparse::Solver {
                self.0.solver
            }

            /// With the iterative solver, the worst conjugate-gradient report over the right-hand sides
            /// (iterations, true relative residual, whether every solve converged).
            pub fn pcg_report(&self) -> Option<kern_sparse::PcgReport> {
                self.0.pcg
            }

            /// Number of outputs (1, the number of classes for one-vs-rest with more than two classes, or
            /// the number of target columns of a multi-output kernel ridge regression).
            pub fn outputs(&self) -> usize {
                self.0.outputs()
            }

            /// The training samples (every one carries a coefficient).
            pub fn training_samples(&self) -> &kern_core::Samples {
                &self.0.train
            }

            /// Coefficients `α_i` of output `t`, one per training sample.
            pub fn alpha(&self, t: usize) -> &[f64] {
                let n = self.0.train.n();
                &self.0.alpha[t * n..(t + 1) * n]
            }

            /// Intercept of output `t` (0 without a bias term).
            pub fn bias(&self, t: usize) -> f64 {
                self.0.bias[t]
            }

            /// Decision values `f_t(x)` (`m × outputs`).
            pub fn decision_function(&self, x: &kern_core::Samples) -> $crate::Result<faer::Mat<f64>> {
                self.0.decision_function(x)
            }

            /// Predictions: ±1 (binary targets), class index (class targets), value (real targets).
            pub fn predict(&self, x: &kern_core::Samples) -> $crate::Result<Vec<f64>> {
                self.0.predict(x)
            }

            /// How far the training decision values stray from the intercept, relative to the
            /// training targets `y` (those the model was trained on, without sample weights):
            /// `max_i |f(x_i) − b| / max_i |y_i − b|`, over every output. Near 0 (below the solver's
            /// tolerance) the regularization has made the model constant: it predicts about `b`
            /// everywhere. Costs `O(n)` per output (from the solved system, no kernel evaluation).
            ///
            #[doc = concat!(
                "```\nuse kern_core::{RealTargets, Samples, Targets};\n",
                "use kern_core::learner::Fit;\n",
                "use kern_models::", $module, "::", stringify!($params), ";\n",
                "let x = Samples::from_rows(&[[0.0], [1.0], [2.0]])?;\n",
                "let y = Targets::Real(RealTargets::new(vec![0.0, 1.0, 3.0])?);\n",
                "let k: kern_core::KernelSpec = \"gaussian:sigma=1\".parse()?;\n",
                "let fitted = ", stringify!($params), "::new(k.clone()).lambda(1e-3).fit(&x, &y)?;\n",
                "assert!(fitted.relative_spread(&y)? > 0.5);\n",
                "let flat = ", stringify!($params), "::new(k).lambda(1e12).fit(&x, &y)?;\n",
                "assert!(flat.relative_spread(&y)? < 1e-9);\n",
                "# Ok::<(), Box<dyn std::error::Error>>(())\n```"
            )]
            pub fn relative_spread(&self, y: &kern_core::Targets) -> $crate::Result<f64> {
                self.0.relative_spread(y)
            }
        }

        impl kern_core::learner::Model for $model {
            type Error = $crate::ModelsError;
            fn predict(&self, x: &kern_core::Samples) -> $crate::Result<Vec<f64>> {
                self.0.predict(x)
            }
        }

        $crate::ridge::estimator::ridge_estimator!(@fit $params, $model, BinaryTargets, binary);
        $crate::ridge::estimator::ridge_estimator!(@fit $params, $model, ClassTargets, classes);
        $crate::ridge::estimator::ridge_estimator!(@fit $params, $model, RealTargets, real);

        impl kern_core::learner::Fit<kern_core::Targets> for $params {
            type Model = $model;
            type Error = $crate::ModelsError;
            fn fit(&self, x: &kern_core::Samples, y: &kern_core::Targets) -> $crate::Result<$model> {
                self.fit_targets(x, y)
            }
        }

        impl $crate::widen::WidenFeatures for $model {
            fn n_features(&self) -> usize {
                self.0.train.d()
            }
            fn widen_features(&mut self, d: usize) -> $crate::Result<()> {
                $crate::widen::widen_store(&mut self.0.train, d)
            }
        }
    };
    (@fit $params:ident, $model:ident, $targets:ident, $encode:ident) => {
        impl kern_core::learner::Fit<kern_core::$targets> for $params {
            type Model = $model;
            type Error = $crate::ModelsError;
            fn fit(&self, x: &kern_core::Samples, y: &kern_core::$targets) -> $crate::Result<$model> {
                self.fit_encoded(x, $crate::ridge::Encoded::$encode(y))
            }
        }
    };
}

pub(crate) use ridge_estimator;
