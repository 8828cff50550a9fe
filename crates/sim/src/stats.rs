//! Small statistics shared by the reproductions' verdicts and the blind
//! forecasts' error figures.

/// Two-sided 95 % quantiles of Student's t distribution for 1 to 10
/// degrees of freedom.
const T95: [f64; 10] = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];

/// The two-sided 95 % quantile of Student's t with `df` degrees of freedom
/// (at least 1): the table's value up to 10, beyond 10 the table's last
/// entry (t decreases with the degrees of freedom, so an interval built on
/// it errs on the wide side).
pub(crate) fn t95(df: usize) -> f64 {
    T95[df.clamp(1, T95.len()) - 1]
}

#[cfg(test)]
mod tests {
    #[test]
    fn t95_is_the_table_and_its_last_entry_beyond() {
        assert_eq!(super::t95(1), 12.706);
        assert_eq!(super::t95(5), 2.571);
        assert_eq!(super::t95(10), 2.228);
        assert_eq!(super::t95(74), 2.228);
        assert_eq!(super::t95(0), 12.706);
    }
}
