//! Checks of decoded models (see [`crate::persist::Persist::validate`]): lengths consistent, indices
//! in range, numbers finite. A model file with a valid checksum can still be crafted; these checks make
//! it an error before any prediction indexes into it.

use crate::ridge::{Fitted, Task};
use kern_core::{Kernel, KernelSpec};

/// What is wrong with a decoded model.
pub(crate) type Check = std::result::Result<(), String>;

/// Every value finite.
pub(crate) fn finite(what: &str, v: &[f64]) -> Check {
    match v.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(format!("{what}[{i}] = {} is not finite", v[i])),
        None => Ok(()),
    }
}

/// A length as expected.
pub(crate) fn len(what: &str, found: usize, expected: usize) -> Check {
    if found == expected { Ok(()) } else { Err(format!("{what} has {found} entries, expected {expected}")) }
}

/// Every index below `bound`.
pub(crate) fn indices<I: Copy + TryInto<usize>>(what: &str, v: &[I], bound: usize) -> Check {
    for (i, &x) in v.iter().enumerate() {
        match x.try_into() {
            Ok(u) if u < bound => {}
            _ => return Err(format!("{what}[{i}] is out of range (must be below {bound})")),
        }
    }
    Ok(())
}

/// The kernel accepts samples of dimension `d`.
pub(crate) fn kernel(k: &KernelSpec, d: usize) -> Check {
    k.check_dim(d).map_err(|e| format!("kernel {k} does not fit the stored samples: {e}"))
}

/// Class names: at least two, distinct.
pub(crate) fn names(v: &[String]) -> Check {
    if v.len() < 2 {
        return Err(format!("{} class names, need at least 2", v.len()));
    }
    for (i, n) in v.iter().enumerate() {
        if v[..i].contains(n) {
            return Err(format!("class name {n:?} appears twice"));
        }
    }
    Ok(())
}

/// The dual model shared by LS-SVM and kernel ridge regression.
pub(crate) fn fitted(f: &Fitted) -> Check {
    kernel(&f.kernel, f.train.d())?;
    match &f.task {
        Task::Binary { names: n } => names(n)?,
        Task::Classes { names: n } => names(n)?,
        Task::Regression => {}
    }
    match f.task {
        // Kernel ridge regression may have several outputs (one column of targets each).
        Task::Regression if !f.bias.is_empty() => {}
        _ => len("bias", f.bias.len(), f.task.outputs())?,
    }
    let n_alpha = f.train.n().checked_mul(f.bias.len()).ok_or("alpha size overflows")?;
    len("alpha", f.alpha.len(), n_alpha)?;
    finite("alpha", &f.alpha)?;
    finite("bias", &f.bias)?;
    finite("lambda", &[f.lambda])?;
    if let Some(s) = &f.selection {
        len("selection error", s.error.len(), s.grid.len())?;
        len("selection mse", s.mse.len(), s.grid.len())?;
        indices("selection best", &[s.best], s.grid.len())?;
    }
    Ok(())
}

/// A freshly trained model, checked as a decoded one would be: non-finite coefficients (kernel values
/// that overflowed, e.g. a high-degree polynomial on unscaled data) are a numerical error, not a model.
pub(crate) fn trained<M: crate::persist::Persist>(m: M) -> crate::Result<M> {
    numerical(M::KIND, m.validate())?;
    Ok(m)
}

/// The result of a trained model's check as a numerical error.
pub(crate) fn numerical(kind: &str, check: Check) -> crate::Result<()> {
    check.map_err(|reason| {
        crate::ModelsError::Numerical(format!(
            "training produced an invalid {kind} model ({reason}); the kernel values probably overflow or \
             are NaN: scale the features or use a smaller degree, scale or bandwidth"
        ))
    })
}
