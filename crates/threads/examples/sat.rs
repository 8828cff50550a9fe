//! Decision search with early stop: is a CNF formula (a DIMACS file)
//! satisfiable? DPLL — unit propagation, then a branch on a variable — on
//! all cores; the first PE to find a model stops every PE.
use treelb::incumbent::{Incumbent, Sense};
use treelb::search::{Children, DfsWork, Search, SplitPolicy};
use treelb_threads::{Config, run};

struct Sat {
    clauses: Vec<Vec<i32>>,    // literals: +v is variable v, -v its negation
    model: Incumbent<Vec<i8>>, // set once, by the PE that finds a model
}

/// A partial assignment: 1 true, -1 false, 0 not yet, for variables 1..=n.
type Assignment = Vec<i8>;

fn value(a: &Assignment, lit: i32) -> i8 {
    a[lit.unsigned_abs() as usize] * lit.signum() as i8
}

fn set(a: &mut Assignment, lit: i32) {
    a[lit.unsigned_abs() as usize] = lit.signum() as i8;
}

impl Search for Sat {
    type Node = Assignment;
    type Output = ();

    fn root(&self) -> Assignment {
        let vars = self.clauses.iter().flatten().map(|l| l.unsigned_abs()).max().unwrap_or(0);
        vec![0; vars as usize + 1]
    }

    fn expand(&self, mut a: Assignment, _: &mut (), children: &mut Children<'_, Assignment>) {
        'propagate: loop {
            let mut branch = None; // a free literal of the first open clause
            for clause in self.clauses.iter().filter(|c| c.iter().all(|&l| value(&a, l) != 1)) {
                let mut free = clause.iter().copied().filter(|&l| value(&a, l) == 0);
                match (free.next(), free.next()) {
                    (None, _) => return, // a conflict: no model below this node
                    (Some(unit), None) => {
                        set(&mut a, unit); // unit propagation
                        continue 'propagate;
                    }
                    (Some(lit), Some(_)) => _ = branch.get_or_insert(lit),
                }
            }
            let Some(lit) = branch else {
                self.model.offer(1, || a); // every clause is satisfied: a model
                return;
            };
            let mut other = a.clone();
            set(&mut other, -lit);
            set(&mut a, lit);
            children.push(other);
            children.push(a); // lit true first
            return;
        }
    }

    fn should_stop(&self) -> bool {
        self.model.best().is_some()
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: sat FILE.cnf");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let lits = text.lines().filter(|l| !l.starts_with(['c', 'p', '%'])).flat_map(str::split_whitespace);
    let lits: Vec<i32> = lits.map(|t| t.parse().unwrap_or_else(|_| panic!("{path}: `{t}`"))).collect();
    let clauses = lits.split(|&l| l == 0).filter(|c| !c.is_empty()).map(<[i32]>::to_vec).collect();
    let sat = Sat { clauses, model: Incumbent::new(Sense::Maximize) };
    let outcome = run(DfsWork::new(&sat, SplitPolicy::default()), &Config::default()).unwrap();
    match sat.model.into_best() {
        Some((_, model)) => {
            assert!(sat.clauses.iter().all(|c| c.iter().any(|&l| value(&model, l) == 1)));
            println!("SATISFIABLE (checked), after {} nodes", outcome.stats.work_units());
        }
        None => println!("UNSATISFIABLE, after {} nodes", outcome.stats.work_units()),
    }
}
