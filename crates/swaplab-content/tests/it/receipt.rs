//! Receipts: round trips, the checksum against every one-character typo, messages for
//! bad input, and no panic on garbage.

use swaplab_content::progress::Progress;
use swaplab_content::receipt::{
    MAX_PARTICIPANT_CHARS, clean_participant, decode_receipt, done_numbers, encode_receipt,
    read_paste, roster,
};

const SYMBOLS: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Two receipts the end-to-end test pastes; if the format changes, change both.
const ADA: (&str, &[u32], &str) =
    ("Ada Lovelace", &[1, 2, 3], "SL1-043M-2S31-4166-YXK5-DHGP-6SDE-D4");
const GRACE: (&str, &[u32], &str) =
    ("Grace Hopper", &[1, 4, 7], "SL1-054M-EWK1-CDJJ-0J3F-E1R6-AWPS-P4");

fn check_round_trip(name: &str, done: &[u32], want_name: &str, want_done: &[u32]) {
    let code = encode_receipt(name, done);
    assert!(code.starts_with("SL1-"), "{code}");
    assert!(
        code[4..].chars().all(|c| c == '-' || SYMBOLS.contains(c)),
        "{code} holds a character outside the alphabet"
    );
    let receipt = decode_receipt(&code).unwrap_or_else(|e| panic!("{code}: {e}"));
    assert_eq!(receipt.participant, want_name, "{code}");
    assert_eq!(receipt.done, want_done, "{code}");
}

#[test]
fn receipts_round_trip() {
    let all: Vec<u32> = (1..=64).collect();
    let cases: &[(&str, &[u32], &str, &[u32])] = &[
        ("Ada Lovelace", &[1, 2, 3], "Ada Lovelace", &[1, 2, 3]),
        ("", &[], "", &[]),
        ("x", &[64], "x", &[64]),
        ("  Grace   Hopper \n", &[7, 1, 4, 4], "Grace Hopper", &[1, 4, 7]),
        ("Zoë Ñandú 田中 🦀", &[8, 9, 16, 17], "Zoë Ñandú 田中 🦀", &[8, 9, 16, 17]),
        ("out of range", &[0, 65, 1000, u32::MAX, 5], "out of range", &[5]),
        ("all", &all, "all", &all),
        ("tab\tand\u{7}bell\u{202E}rlo", &[2], "tab andbellrlo", &[2]),
    ];
    for (name, done, want_name, want_done) in cases {
        check_round_trip(name, done, want_name, want_done);
    }
    let long = "é".repeat(100);
    check_round_trip(&long, &[3], &"é".repeat(MAX_PARTICIPANT_CHARS), &[3]);
}

#[test]
fn the_codes_the_end_to_end_test_pastes_are_stable() {
    for (name, done, code) in [ADA, GRACE] {
        assert_eq!(encode_receipt(name, done), code, "{name}");
        let receipt = decode_receipt(code).expect("decodes");
        assert_eq!((receipt.participant.as_str(), receipt.done.as_slice()), (name, done));
    }
}

#[test]
fn names_are_trimmed_collapsed_and_capped() {
    assert_eq!(clean_participant("  a \t b  "), "a b");
    assert_eq!(clean_participant(&"x".repeat(50)).chars().count(), MAX_PARTICIPANT_CHARS);
    // A cut that leaves a space at the end drops it.
    let name = format!("{} yz", "a".repeat(MAX_PARTICIPANT_CHARS - 1));
    assert_eq!(clean_participant(&name), "a".repeat(MAX_PARTICIPANT_CHARS - 1));
}

#[test]
fn decoding_forgives_case_wrapping_and_lookalikes() {
    let code = encode_receipt("Ada Lovelace", &[1, 2, 3]);
    let want = decode_receipt(&code).expect("decodes");
    let lookalike = |c: char| match c {
        '0' => 'o',
        '1' => 'l',
        other => other,
    };
    let variants = [
        code.to_lowercase(),
        format!("  \"{code}\"\n"),
        format!("“{code}”."),
        format!("`{code}`"),
        format!("({code})"),
        format!("SL1-{}", code[4..].replace('-', "")),
        code.replace('-', "–"),
        code.replace('-', " - "),
        format!("SL1-{}", code[4..].chars().map(lookalike).collect::<String>()),
        format!("sl1-{}", code[4..].replace('1', "I")),
    ];
    for variant in variants {
        assert_eq!(decode_receipt(&variant).as_ref(), Ok(&want), "{variant:?}");
    }
}

/// Every code the typo tests run on: short and long names, few and many exercises.
fn sample_codes() -> Vec<String> {
    vec![
        encode_receipt("Ada Lovelace", &[1, 2, 3]),
        encode_receipt("", &[]),
        encode_receipt("Bo", &[7]),
        encode_receipt("Grace Hopper", &[1, 4, 7, 33, 64]),
        encode_receipt("Zoë 田中", &(1..=64).collect::<Vec<_>>()),
    ]
}

/// The symbols of a code after its prefix, without dashes.
fn body(code: &str) -> Vec<char> {
    code[4..].chars().filter(|c| *c != '-').collect()
}

fn rebuild(symbols: &[char]) -> String {
    format!("SL1-{}", symbols.iter().collect::<String>())
}

#[test]
fn every_single_character_typo_is_caught() {
    for code in sample_codes() {
        let original = decode_receipt(&code).expect("decodes");
        let symbols = body(&code);
        for at in 0..symbols.len() {
            for replacement in SYMBOLS.chars().filter(|c| *c != symbols[at]) {
                let mut typo = symbols.clone();
                typo[at] = replacement;
                let typo = rebuild(&typo);
                assert!(decode_receipt(&typo).is_err(), "{typo} (from {code}) was read");
            }
        }
        // Two neighbours swapped.
        for at in 1..symbols.len() {
            if symbols[at] == symbols[at - 1] {
                continue;
            }
            let mut typo = symbols.clone();
            typo.swap(at, at - 1);
            let typo = rebuild(&typo);
            assert!(decode_receipt(&typo).is_err(), "{typo} (from {code}) was read");
        }
        // One character missing, or one too many.
        for at in 0..symbols.len() {
            let mut missing = symbols.clone();
            missing.remove(at);
            let missing = rebuild(&missing);
            assert!(decode_receipt(&missing).is_err(), "{missing} (from {code}) was read");
        }
        for at in 0..=symbols.len() {
            for extra in SYMBOLS.chars() {
                let mut longer = symbols.clone();
                longer.insert(at, extra);
                let longer = rebuild(&longer);
                // Doubling a character next to itself is the same text as inserting it
                // on its other side, and still a typo: none may read as the original.
                if let Ok(read) = decode_receipt(&longer) {
                    panic!("{longer} (from {code}) was read as {read:?}, not {original:?}");
                }
            }
        }
    }
}

fn check_error(code: &str, want: &str) {
    match decode_receipt(code) {
        Ok(receipt) => panic!("{code:?} was read as {receipt:?}"),
        Err(message) => assert!(message.contains(want), "{code:?}: {message:?} lacks {want:?}"),
    }
}

#[test]
fn bad_receipts_say_what_is_wrong() {
    let good = encode_receipt("Ada Lovelace", &[1, 2, 3]);
    let cases: &[(&str, &str)] = &[
        ("", "nothing to read"),
        ("   \"\"  ", "nothing to read"),
        ("hello", "starts with SL1-"),
        ("XY1-ABCD", "starts with SL1-"),
        ("SL-ABCD", "starts with SL1-"),
        ("SL2-ABCD-EFGH", "version-2 receipt"),
        ("SL1-", "too short"),
        ("SL1-ABCU", "“U”"),
        ("SL1-AB*CD", "“*”"),
        ("SL1-A", "typo"),
        ("SL1-0000", "typo"),
    ];
    for (code, want) in cases {
        check_error(code, want);
    }
    check_error(&format!("{good}X"), "typo");
    check_error(&format!("SL1-{}", "A".repeat(700)), "too long");
    // A well-formed code whose name was not cleaned by the encoder is refused.
    check_error(&forge("  padded "), "not written by Swap Lab");
    check_error(&forge(&"n".repeat(41)), "not written by Swap Lab");
}

/// A code with a correct checksum around a name the encoder would not write.
fn forge(name: &str) -> String {
    // Re-implements the format from its documentation, so the test also pins it.
    let mut payload = vec![0u8];
    payload.extend_from_slice(name.as_bytes());
    let mut crc: u16 = 0xFFFF;
    let length = (payload.len() as u16).to_be_bytes();
    for &byte in b"SL1".iter().chain(&length).chain(&payload) {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    payload.extend_from_slice(&crc.to_be_bytes());
    let mut bits = String::new();
    for byte in &payload {
        bits.push_str(&format!("{byte:08b}"));
    }
    while !bits.len().is_multiple_of(5) {
        bits.push('0');
    }
    let symbols: String = bits
        .as_bytes()
        .chunks(5)
        .map(|chunk| {
            let value = chunk.iter().fold(0usize, |v, b| v * 2 + usize::from(*b == b'1'));
            SYMBOLS.as_bytes()[value] as char
        })
        .collect();
    format!("SL1-{symbols}")
}

#[test]
fn the_documented_format_is_the_one_written() {
    assert_eq!(
        decode_receipt(&forge("Bo")),
        Ok(swaplab_content::receipt::Receipt { participant: "Bo".into(), done: vec![] })
    );
    assert_eq!(forge("Bo").replace('-', ""), encode_receipt("Bo", &[]).replace('-', ""));
}

/// A small deterministic generator, so a failure can be replayed.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn garbage_never_panics_and_is_almost_never_read() {
    let pools: [&[char]; 4] = [
        &['S', 'L', '1', '-', 'a', 'Z', '0', 'u', ' ', '"', '–', 'é', '\n', '🦀', '\u{0}'],
        &SYMBOLS.chars().collect::<Vec<_>>(),
        &['-', 's', 'l', '1', '2', '\u{202E}', '.', ',', 'O', 'I'],
        &['S', 'L', '1', '-'],
    ];
    let mut rng = Xorshift(0x5EED_CAFE_F00D_1234);
    let mut read = 0;
    for round in 0..6000 {
        let pool = pools[round % pools.len()];
        let len = rng.below(80);
        let mut text: String = (0..len).map(|_| pool[rng.below(pool.len())]).collect();
        if round % 3 == 0 {
            text = format!("SL1-{text}");
        }
        let decoded = decode_receipt(&text);
        if decoded.is_ok() {
            read += 1;
        }
        let paste = read_paste(&text);
        let _ = roster(&paste);
    }
    // A 16-bit checksum lets through about one random string in 65,536.
    assert!(read <= 2, "{read} random strings read as receipts");
}

#[test]
fn pasted_text_yields_every_code_with_its_line() {
    let ada = encode_receipt("Ada Lovelace", &[1, 2]);
    let ada_later = encode_receipt("ada lovelace", &[3]);
    let grace = encode_receipt("Grace Hopper", &[4]);
    let mut typo: Vec<char> = ada.chars().collect();
    let last = typo.len() - 1;
    typo[last] = if typo[last] == 'A' { 'B' } else { 'A' };
    let typo: String = typo.into_iter().collect();
    let text = format!(
        "Ada Lovelace  10:32\n{ada}\n\nGrace: my receipt is “{grace}”, and again {grace}.\n\
         {typo}\nsl1-\u{3000}\n{ada_later}, SL2-AAAA\nthanks all\n"
    );
    let paste = read_paste(&text);
    let summary: Vec<(u32, bool)> =
        paste.codes.iter().map(|c| (c.line, c.result.is_ok())).collect();
    assert_eq!(
        summary,
        [(2, true), (4, true), (4, true), (5, false), (6, false), (7, true), (7, false)],
        "{paste:#?}"
    );
    assert_eq!(
        paste.skipped,
        [(1, "Ada Lovelace  10:32".to_owned()), (8, "thanks all".to_owned())]
    );
    let errors: Vec<&str> =
        paste.errors().map(|c| c.result.as_ref().unwrap_err().as_str()).collect();
    assert!(errors[0].contains("typo"), "{errors:?}");
    assert!(errors[1].contains("too short"), "{errors:?}");
    assert!(errors[2].contains("version-2"), "{errors:?}");

    let people = roster(&paste);
    let summary: Vec<(&str, &[u32], usize)> =
        people.iter().map(|p| (p.name.as_str(), p.done.as_slice(), p.receipts)).collect();
    assert_eq!(summary, [("ada lovelace", &[1, 2, 3][..], 2), ("Grace Hopper", &[4][..], 2)]);
}

#[test]
fn a_huge_paste_is_cut_and_said_so() {
    let code = encode_receipt("Ada", &[1]);
    let text = format!("{code}\n").repeat(20_000);
    let paste = read_paste(&text);
    assert!(paste.truncated);
    assert!(paste.codes.len() < 20_000 && paste.codes.len() > 1000);
    assert!(!read_paste(&code).truncated);
}

#[test]
fn done_exercises_become_numbers() {
    let mut progress = Progress::default();
    for (id, done) in
        [("03-three", true), ("01-one", true), ("02-two", false), ("x-y", true), ("99-far", true)]
    {
        progress.update(id, |p| p.done = done);
    }
    assert_eq!(done_numbers(&progress), [1, 3]);
    assert_eq!(done_numbers(&Progress::default()), Vec::<u32>::new());
}
