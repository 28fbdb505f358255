//! The router's pure parts: every route's path reads back as the same route, unknown and
//! hostile paths are the not-found page, query components survive encoding, and the
//! places kept for a reload read back from storage whatever the storage holds.

use swaplab_web::route::Route;
use swaplab_web::router::{
    Places, decode_component, encode_component, encode_segment, query_pairs,
};

fn every_route() -> Vec<Route> {
    vec![
        Route::Home,
        Route::LearnIndex,
        Route::Chapter { chapter: "the-swap".into() },
        Route::Play,
        Route::Examples,
        Route::Exercises,
        Route::Exercise { id: "01-point-at-the-leak".into() },
        Route::ShortExercise { number: "7".into() },
        Route::Workshop,
        Route::WorkshopExercises,
        Route::Receipts,
        Route::NotFound,
    ]
}

#[test]
fn every_route_reads_back_from_its_path() {
    for route in every_route() {
        assert_eq!(Route::recognize(&route.to_path()), route, "{}", route.to_path());
    }
    assert_eq!(Route::Chapter { chapter: "the-swap".into() }.to_path(), "/learn/the-swap");
    assert_eq!(Route::Receipts.to_path(), "/workshop/receipts");
}

#[test]
fn paths_are_read_as_a_browser_sends_them() {
    assert_eq!(Route::recognize(""), Route::Home);
    assert_eq!(Route::recognize("/learn/"), Route::LearnIndex);
    assert_eq!(Route::recognize("/play?example=x#v1e"), Route::Play);
    assert_eq!(
        Route::recognize("/learn/the%2Dswap"),
        Route::Chapter { chapter: "the-swap".into() }
    );
    // A `+` in a path is a plus, not a space.
    assert_eq!(Route::recognize("/x/1+1"), Route::ShortExercise { number: "1+1".into() });
    for unknown in ["/nowhere", "/learn/a/b", "/workshop/other", "/404", "/x", "/%ZZ"] {
        assert_eq!(Route::recognize(unknown), Route::NotFound, "{unknown}");
    }
    // A hostile segment is only a name the page then does not find.
    let hostile = Route::recognize("/learn/%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    assert_eq!(hostile, Route::Chapter { chapter: "<script>alert(1)</script>".into() });
    assert_eq!(
        hostile.to_path(),
        "/learn/%3Cscript%3Ealert%281%29%3C%2Fscript%3E",
        "a slug cannot add path segments"
    );
}

#[test]
fn query_components_round_trip() {
    for text in ["tutorial", "after/skills/check_tickets/skill.md", "a b&c=d+e#f", "é😀", "%", ""]
    {
        assert_eq!(decode_component(&encode_component(text)), text, "{text}");
        assert_eq!(decode_component(&encode_segment(text)), text, "{text}");
    }
    assert_eq!(encode_component("after/a b.md"), "after/a%20b.md");
    assert!(!encode_segment("a/b").contains('/'));
    assert_eq!(
        query_pairs("example=tutorial&file=after%2Fa.md&line&&x=1+2&bad=%G1%"),
        [
            ("example".to_owned(), "tutorial".to_owned()),
            ("file".to_owned(), "after/a.md".to_owned()),
            ("line".to_owned(), String::new()),
            ("x".to_owned(), "1 2".to_owned()),
            ("bad".to_owned(), "%G1%".to_owned()),
        ]
    );
    // Bytes that are not UTF-8 do not fail the page.
    assert_eq!(decode_component("%FF"), "\u{fffd}");
}

#[test]
fn places_read_back_as_written_keeping_the_most_recent_hundred() {
    let mut places = Places::default();
    for key in 0..150u64 {
        places.note(key, key as f64 * 10.5);
    }
    // The hundred most recent: 50 to 149. Noting 50 again makes it the most recent,
    // with its new place, so a new entry pushes out 51 instead.
    places.note(50, 7.0);
    places.note(200, 1.0);
    let read = Places::read(&places.write());
    assert_eq!(read, places);
    assert_eq!(read.get(50), Some(7.0));
    assert_eq!(read.get(200), Some(1.0));
    assert_eq!(read.get(149), Some(1564.5));
    assert_eq!(read.get(52), Some(546.0));
    assert_eq!(read.get(51), None);
    assert_eq!(read.get(49), None);
}

#[test]
fn places_skip_whatever_storage_holds_that_is_not_a_place() {
    let text = "1 100\nnot a line\n2 -5\n3 NaN\n4 inf\n5\n 6 7\n18446744073709551616 3\n7 250.5\n";
    let read = Places::read(text);
    assert_eq!(read.get(1), Some(100.0));
    assert_eq!(read.get(7), Some(250.5));
    for key in [2, 3, 4, 5, 6] {
        assert_eq!(read.get(key), None, "key {key}");
    }
    assert_eq!(Places::read(""), Places::default());
}
