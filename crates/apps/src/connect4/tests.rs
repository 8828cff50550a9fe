use super::*;

#[test]
fn notation_and_bitboards() {
    let p = Position::parse("4453").unwrap();
    assert_eq!(p.moves(), 4);
    assert_eq!(p.to_string(), ".......\n.......\n.......\n.......\n...o...\n..oxx..\n");
    assert_eq!(Position::parse("44a"), Err(ParseError::NotAColumn(3, 'a')));
    assert_eq!(Position::parse("4444444"), Err(ParseError::Full(7, 4)));
    assert_eq!(Position::parse("1212121"), Err(ParseError::Over(7, 1)));
    // Distinct positions, distinct keys; the same position, the same key.
    assert_ne!(Position::parse("12").unwrap().key(), Position::parse("21").unwrap().key());
    assert_eq!(Position::parse("1234").unwrap().key(), Position::parse("3214").unwrap().key());
}

#[test]
fn wins_at_once_and_forced_losses_have_their_scores() {
    let game = Connect4::new(16);
    // x has three in column 1 and is to move: wins with its 4th stone, 22 − 4.
    let p = Position::parse("121212").unwrap();
    let s = game.solve_sequential(&p, false);
    assert_eq!((s.score, s.best_move), (18, Some(1)));
    // o to move faces two threats of x (columns 2 and 6 around 345): o
    // loses to x's 4th stone, −(22 − 4) (Pons's solver agrees).
    let p = Position::parse("37475").unwrap();
    assert_eq!(game.solve_sequential(&p, false).score, -18);
    assert_eq!(game.solve_sequential(&p, true).score, -1);
}
