use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
use treelb::seq;

use std::fs;
use std::time::Duration;

use treelb::Progress;
use treelb_mpi::wire::DfsCodec;

use super::*;
use crate::file::{decode, encode, write_atomic};

#[test]
fn a_drained_bag_keeps_every_open_node_once() {
    let tree = BinaryTree(12);
    let drain = Drain::new(Duration::MAX);
    let mut bag = Resumable::new(vec![DfsWork::new(&tree, SplitPolicy::OldestHalf)], &drain);
    let mut done = 0;
    assert_eq!(bag.work(100, &mut done), Progress::Pending);
    let mut other = bag.split().expect("open nodes to split");
    assert_eq!(other.work(50, &mut done), Progress::Pending);
    drain.open();
    assert_eq!(bag.work(100, &mut done), Progress::Exhausted { used: 0 });
    assert_eq!(other.work(100, &mut done), Progress::Exhausted { used: 0 });
    assert!(bag.split().is_none() && other.split().is_none());
    assert_eq!(done, 150);
    let pieces = drain.into_pieces();
    assert_eq!(pieces.len(), 2);
    // The rest, worked in a new bag: exactly the nodes not yet counted.
    let again = Drain::new(Duration::MAX);
    let rest = seq::run_work(Resumable::new(pieces, &again)).0;
    assert_eq!(done + rest, (1 << 13) - 1);
    assert!(again.into_pieces().is_empty());
}

#[test]
fn a_bag_of_pieces_splits_by_halves_and_works_to_the_end() {
    let tree = BinaryTree(10);
    let drain = Drain::new(Duration::MAX);
    let pieces = vec![DfsWork::new(&tree, SplitPolicy::OldestHalf); 5];
    let mut bag = Resumable::new(pieces, &drain);
    let other = bag.split().expect("five pieces");
    assert_eq!((bag.len(), other.len()), (2, 3));
    // A budget that ends inside one piece and crosses into the next.
    let mut n = 0;
    let mut units = 0;
    loop {
        let p = bag.work(700, &mut n);
        units += p.used(700);
        if p.is_exhausted() {
            break;
        }
    }
    assert_eq!((n, units), (2 * 2047, 2 * 2047));
    assert_eq!(seq::run_work(other).0, 3 * 2047);
}

fn saved() -> Saved {
    Saved {
        description: vec!["uts".into(), "--tree".into(), "T1".into()],
        input: Some(InputHash { path: "g.col".into(), sha1: "ab".into() }),
        output: to_bytes(&17u64),
        stats: RunStats::default(),
        incumbent: Some((5, vec![1, 2])),
        pieces: vec![vec![1, 2, 3], vec![]],
        count: 3,
    }
}

#[test]
fn a_checkpoint_round_trips_and_every_damage_is_refused() {
    let bytes = encode(&saved());
    let back = decode(&bytes).unwrap();
    assert_eq!((back.description, back.pieces, back.count), (saved().description, saved().pieces, 3));
    assert!(decode(&bytes[..bytes.len() - 1]).unwrap_err().starts_with("truncated"));
    assert!(decode(&bytes[..10]).unwrap_err().starts_with("not a treelb checkpoint"));
    assert!(decode(b"hello").unwrap_err().starts_with("not a treelb checkpoint"));
    for i in [20, 30, bytes.len() - 3] {
        let mut bad = bytes.clone();
        bad[i] ^= 0x40;
        let e = decode(&bad).unwrap_err();
        assert!(e.starts_with("corrupt") || e.starts_with("truncated"), "byte {i}: {e}");
    }
    let mut newer = bytes.clone();
    newer[16] = 9;
    assert_eq!(decode(&newer).unwrap_err(), "checkpoint format version 9; this treelb reads version 2");
    let mut older = bytes.clone();
    older[16] = 1;
    assert!(
        decode(&older).unwrap_err().starts_with("checkpoint format version 1, written by an earlier treelb")
    );
}

#[test]
fn the_file_is_replaced_whole() {
    let dir = scratch("replaced");
    let path = dir.join("run.ckpt");
    write_atomic(&path, b"first").unwrap();
    write_atomic(&path, b"second").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left");
    fs::remove_dir_all(&dir).unwrap();
}

/// An empty directory of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("treelb-ckpt-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tree` on 2 threads in segments of `every`, through `checkpoint`;
/// stops (as if killed) after `segments` segments when given.
fn run_tree(
    checkpoint: &Checkpoint,
    tree: &BinaryTree,
    segments: Option<usize>,
) -> Result<Checkpointed<u64>, Error> {
    let codec = DfsCodec::new(tree, SplitPolicy::OldestHalf);
    let mut n = 0;
    checkpoint.run(&codec, codec.root(), None, |bag| {
        n += 1;
        let o = treelb_threads::run(bag, &treelb_threads::Config::new(2)).expect("valid");
        let killed = segments.is_some_and(|s| n >= s);
        Ok(Segment::new(o.output, o.stats, killed.then_some(treelb::limit::StopReason::Signal)))
    })
}

#[test]
fn a_run_killed_after_a_checkpoint_resumes_to_the_exact_count() {
    let dir = scratch("resume");
    let path = dir.join("tree.ckpt");
    let tree = BinaryTree(22);
    let first = Checkpoint::create(&path).unwrap().every(Duration::from_millis(1)).unwrap();
    let partial = run_tree(&first, &tree, Some(3)).unwrap();
    assert!(partial.stopped.is_some());
    assert_eq!(partial.checkpoints, 2, "the stopped segment writes none");
    drop(first);
    let saved = read(&path).unwrap();
    assert!(!saved.pieces.is_empty() && saved.count == 2);
    // Whatever the third segment did is lost; the second checkpoint holds.
    let again = Checkpoint::resume(&path).unwrap().every(Duration::from_millis(1)).unwrap();
    let done = run_tree(&again, &tree, None).unwrap();
    assert_eq!((done.output, done.stopped), ((1 << 23) - 1, None));
    assert!(done.checkpoints > 2);
    drop(again);
    assert!(read(&path).unwrap().pieces.is_empty());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_new_run_refuses_what_a_checkpoint_would_destroy() {
    let dir = scratch("refuse");
    // Another file.
    let other = dir.join("notes.txt");
    fs::write(&other, "VICTIM ORIGINAL CONTENT").unwrap();
    let e = Checkpoint::create(&other).unwrap_err().to_string();
    assert!(e.contains("is not a treelb checkpoint; refusing to overwrite it"), "{e}");
    assert_eq!(fs::read_to_string(&other).unwrap(), "VICTIM ORIGINAL CONTENT");
    // A device, a directory, a missing directory.
    let e = Checkpoint::create("/dev/null").unwrap_err().to_string();
    assert!(e.contains("is a device"), "{e}");
    let e = Checkpoint::create(&dir).unwrap_err().to_string();
    assert!(e.contains("is a directory"), "{e}");
    let e = Checkpoint::create(dir.join("nodir/x.ckpt")).unwrap_err().to_string();
    assert!(e.contains("no directory for the checkpoint") && e.contains("No such file"), "{e}");
    // A symbolic link at the checkpoint's own name.
    let link = dir.join("link.ckpt");
    std::os::unix::fs::symlink(&other, &link).unwrap();
    let e = Checkpoint::create(&link).unwrap_err().to_string();
    assert!(e.contains("is a symbolic link"), "{e}");
    // An earlier run's checkpoint: resume it or remove it.
    let path = dir.join("run.ckpt");
    write_atomic(&path, &encode(&saved())).unwrap();
    let e = Checkpoint::create(&path).unwrap_err().to_string();
    assert!(e.contains("holds the checkpoint of a run (3 checkpoints written, 2 open pieces)"), "{e}");
    // An empty file (made to reserve the name) is fine.
    let empty = dir.join("empty.ckpt");
    fs::write(&empty, "").unwrap();
    Checkpoint::create(&empty).unwrap();
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_run_on_one_checkpoint_is_refused_while_the_first_holds_it() {
    let dir = scratch("lock");
    let path = dir.join("run.ckpt");
    let first = Checkpoint::create(&path).unwrap();
    let e = Checkpoint::create(&path).unwrap_err();
    assert!(matches!(e, Error::Locked { .. }), "{e}");
    drop(first);
    let second = Checkpoint::create(&path).unwrap();
    write_atomic(&path, &encode(&saved())).unwrap();
    assert!(matches!(Checkpoint::resume(&path).unwrap_err(), Error::Locked { .. }));
    drop(second);
    Checkpoint::resume(&path).unwrap();
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_planted_link_at_a_temporary_name_is_neither_followed_nor_replaced() {
    let dir = scratch("planted");
    let victim = dir.join("victim.txt");
    fs::write(&victim, "VICTIM ORIGINAL CONTENT").unwrap();
    let path = dir.join("run.ckpt");
    // Links at temporary-looking names beside the checkpoint: the writer
    // creates its temporary file exclusively without following a link
    // (`treelb_files::output`, whose tests plant links at the very names it
    // tries), so none is followed or replaced.
    let planted: Vec<_> =
        (0..3).map(|n| dir.join(format!(".run.ckpt.{}.{n}.tmp", std::process::id()))).collect();
    for tmp in &planted {
        std::os::unix::fs::symlink(&victim, tmp).unwrap();
    }
    write_atomic(&path, &encode(&saved())).unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "VICTIM ORIGINAL CONTENT");
    assert_eq!(read(&path).unwrap().count, 3);
    for tmp in &planted {
        assert!(fs::symlink_metadata(tmp).unwrap().file_type().is_symlink());
    }
    // A link planted at the lock file's name is not followed either.
    let planted = dir.join("other.ckpt");
    std::os::unix::fs::symlink(&victim, dir.join(".other.ckpt.lock")).unwrap();
    let e = Checkpoint::create(&planted).unwrap_err().to_string();
    assert!(e.contains("lock file"), "{e}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "VICTIM ORIGINAL CONTENT");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reading_refuses_devices_and_files_longer_than_announced() {
    let e = read(std::path::Path::new("/dev/zero")).unwrap_err().to_string();
    assert!(e.contains("not a regular file (a device)"), "{e}");
    let dir = scratch("longer");
    let path = dir.join("run.ckpt");
    let mut bytes = encode(&saved());
    bytes.push(0);
    fs::write(&path, &bytes).unwrap();
    let e = read(&path).unwrap_err().to_string();
    assert!(e.contains("truncated or damaged checkpoint"), "{e}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resume_against_a_changed_input_is_refused() {
    let dir = scratch("input");
    let input = dir.join("g.col");
    fs::write(&input, "p edge 2 1\ne 1 2\n").unwrap();
    let path = dir.join("run.ckpt");
    let mut first = Checkpoint::create(&path).unwrap();
    first.bind_input(&input).unwrap();
    let tree = BinaryTree(8);
    run_tree(&first, &tree, None).unwrap();
    drop(first);
    let mut again = Checkpoint::resume(&path).unwrap();
    again.bind_input(&input).unwrap();
    drop(again);
    fs::write(&input, "p edge 2 0\n").unwrap();
    let e = Checkpoint::resume(&path).unwrap().bind_input(&input).unwrap_err().to_string();
    assert!(e.contains("changed since the checkpoint was written"), "{e}");
    fs::remove_dir_all(&dir).unwrap();
}
