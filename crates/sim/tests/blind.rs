//! Blind forecasts end to end at a size CI runs: frozen from a calibration,
//! measured on this machine, the file's hash recorded, the figures computed.

use treelb::Strategy;
use treelb_sim::calibrate::blind::{self, CaseSet, MeasureConfig};
use treelb_sim::calibrate::{AppCost, Calibration, Error, NetworkNs};

/// A calibration written by hand (no microbenchmarks: the test checks the
/// pipeline, not this machine's costs).
fn calibration() -> Calibration {
    let mut cal = Calibration {
        cores: 2,
        load: None,
        others_share: None,
        apps: vec![AppCost { app: "nqueens:9".into(), nodes: 0, ns_per_node: 50.0, wall_ns_per_node: 50.0 }],
        t_split: 50.0,
        t_poll: 1.0,
        t_rout_threads: 100.0,
        t_wake: 5_000.0,
        quantum: 1.5e6,
        t_rout_mpi: None,
        t_poll_mpi: None,
        t_rout_mpi_tcp: None,
        t_poll_mpi_tcp: None,
        loggp: None,
    };
    // Forecasts price messages under LogGP, as a calibration now records.
    cal.loggp = Some(NetworkNs::derive(&cal, None, None));
    cal
}

#[test]
fn forecasts_frozen_then_measured_with_their_hash() {
    let cal = calibration();
    let sets: Vec<CaseSet> = ["1:random-polling", "2:random-polling,work-sharing,static-block"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let cases = blind::cases(&cal, &sets);
    assert_eq!(cases.len(), 4);
    let mut seen = 0;
    let forecasts = blind::freeze(&cal, &cases, None, &mut |_| seen += 1).unwrap();
    assert_eq!((seen, forecasts.forecasts.len()), (4, 4));
    assert_eq!(forecasts.forecasts[3].case.strategy, Strategy::StaticBlock);
    assert!(
        forecasts.forecasts.iter().all(|f| f.predicted.efficiency > 0.0 && f.predicted.efficiency <= 1.0)
    );
    let bytes = serde_json::to_vec_pretty(&forecasts).unwrap();

    let cfg = MeasureConfig { repeat: 2, ..MeasureConfig::default() };
    let mut measured = 0;
    let checking = blind::measure(&bytes, None, &cfg, &mut |_| measured += 1).unwrap();
    assert_eq!(measured, 4);
    assert_eq!(checking.sha256, blind::sha256_hex(&bytes));
    assert_eq!(checking.sha256.len(), 64);
    assert_eq!(checking.baselines.len(), 1);
    assert_eq!(checking.baselines[0].source, "measured");
    assert!(checking.checked.iter().all(|r| r.runs.len() == 2 && r.efficiency() > 0.0));
    // Every case's forecast is the frozen one, as the file holds it, in the
    // file's order.
    let read: blind::Forecasts = serde_json::from_slice(&bytes).unwrap();
    for (r, f) in checking.checked.iter().zip(&read.forecasts) {
        assert_eq!(r.forecast.case, f.case);
        assert_eq!(r.forecast.predicted, f.predicted);
    }
    let f = &checking.figures;
    let counted = checking.checked.iter().filter(|r| r.forecast.case.p <= checking.cores).count();
    assert_eq!(f.efficiency.n, counted);
    assert_eq!(f.requests.n, 4);
    // One group of three strategies at P = 2.
    assert_eq!(f.rankings.len(), 1);
    assert_eq!(f.rankings[0].n, 3);
    for v in [&f.efficiency_verdict, &f.messages_verdict, &f.ranking_verdict] {
        assert!(v.starts_with("met (") || v.starts_with("not met (") || v.starts_with("not decided"), "{v}");
    }
    let md = checking.markdown("forecasts.json");
    assert!(md.contains(&checking.sha256));
    assert!(md.contains("| nqueens:9 | threads | 2 | static-block |"));

    // Another file — one forecast changed — has another hash.
    let mut tampered = forecasts.clone();
    tampered.forecasts[0].predicted.efficiency = 0.5;
    let other = serde_json::to_vec_pretty(&tampered).unwrap();
    assert_ne!(blind::sha256_hex(&other), checking.sha256);

    // The results round-trip and refigure to the same verdicts.
    let json = serde_json::to_vec(&checking).unwrap();
    let mut back: blind::Checking = serde_json::from_slice(&json).unwrap();
    back.refigure();
    assert_eq!(back.figures.efficiency_verdict, f.efficiency_verdict);
}

#[test]
fn bad_forecast_files_and_unknown_applications_are_refused() {
    let cfg = MeasureConfig::default();
    let e = blind::measure(b"{}", None, &cfg, &mut |_| {}).unwrap_err();
    assert!(matches!(e, Error::Forecasts(_)), "{e}");
    assert!(e.to_string().contains("not a forecast file"), "{e}");
    let mut f = blind::freeze(&calibration(), &[], None, &mut |_| {}).unwrap();
    f.format = "something else".into();
    let e = blind::measure(&serde_json::to_vec(&f).unwrap(), None, &cfg, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("expected `treelb blind forecasts 1`"), "{e}");
    let case = blind::Case {
        app: "uts:T1".into(),
        runtime: treelb_sim::calibrate::Runtime::Threads,
        p: 2,
        strategy: Strategy::RandomPolling,
    };
    let e = blind::freeze(&calibration(), &[case], None, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("not among the calibration's applications"), "{e}");
}
