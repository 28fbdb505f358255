//! `/`: what Swap Lab is, in two sentences, and where to start.

use yew::prelude::*;

use super::use_title;
use crate::route::Route;
use crate::router::Link;

/// The lines of the built-in example that show the swap in one picture: the ticket
/// tool before (reads the id from memory) and after (takes it as an argument). Read
/// from the example's files, so the picture can never disagree with them.
fn swap_in_one_picture() -> Option<(String, String)> {
    let example = swaplab_content::example(swaplab_content::DEFAULT_EXAMPLE).ok()??;
    let lines_around = |text: &str, needle: &str, extra: &str| -> Option<String> {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| l.contains(needle))?;
        let mut picked = vec![lines[at]];
        picked.extend(lines[at + 1..].iter().find(|l| l.contains(extra)));
        Some(picked.join("\n"))
    };
    let before = example.workspace.before.file("skills/check_tickets/tools.py")?;
    // The server area also holds the modules the server imports (its `lib/`): the
    // picture comes from the file that defines the tool.
    let after = example.workspace.server.files().find_map(|(_, text)| {
        lines_around(text, "def list_open_tickets", "def list_open_tickets")
    })?;
    Some((lines_around(before, "def list_open_tickets", "memory.get")?, after))
}

/// The home page.
#[component]
pub fn HomePage() -> Html {
    use_title(None);
    let first_chapter = swaplab_content::chapters().first();
    html! {
        <div class="page home">
            <section class="hero">
                <h1>{ "Is the MCP server a drop-in replacement for your agent's tools?" }</h1>
                <p class="lede">
                    { "Swap Lab takes a Rasa agent whose tools move from local Python onto an MCP \
                       server and shows, live in your browser, what survives the move and what \
                       does not. The instructions come through word for word; the customer id a \
                       local tool read from server-held memory becomes an argument the model fills \
                       in, and one customer's tickets or notes can reach another's record." }
                </p>
            </section>
            if let Some((before, after)) = swap_in_one_picture() {
                <section class="one-picture" aria-labelledby="picture-heading">
                    <h2 id="picture-heading" class="sr-only">{ "The swap in one picture" }</h2>
                    <figure>
                        <figcaption><span class="area-tag before">{ "before" }</span>
                            { "a local tool reads the caller's id from project memory, which the runtime holds" }</figcaption>
                        <pre><code>{ before }</code></pre>
                    </figure>
                    <span class="arrow" aria-hidden="true">{ "→" }</span>
                    <figure>
                        <figcaption><span class="area-tag after">{ "after" }</span>
                            { "the MCP tool takes the id as an argument, and whoever fills in the call picks the customer" }</figcaption>
                        <pre><code>{ after }</code></pre>
                    </figure>
                </section>
            }
            <section class="start" aria-labelledby="start-heading">
                <h2 id="start-heading">{ "Where to start" }</h2>
                <ul class="cards">
                    if let Some(chapter) = first_chapter {
                        <li class="card">
                            <h3>
                                <Link to={Route::Chapter { chapter: chapter.slug.to_owned() }}>
                                    { "Read the tutorial" }
                                </Link>
                            </h3>
                            <p>{ format!("Start with chapter {}, “{}”: the agent, its three skills, \
                                          and where each customer id comes from before the swap.",
                                         chapter.number, chapter.title) }</p>
                        </li>
                    }
                    <li class="card">
                        <h3><Link to={Route::Play}>{ "Open the playground" }</Link></h3>
                        <p>{ "The tutorial's project before and after the swap, the MCP server and the \
                              mock CRM, side by side. Edit any file and see what changed." }</p>
                    </li>
                    <li class="card">
                        <h3><Link to={Route::Examples}>{ "Browse the examples" }</Link></h3>
                        <p>{ "Swaps to study, each opening in the playground with its files loaded." }</p>
                    </li>
                    <li class="card">
                        <h3><Link to={Route::Exercises}>{ "Try the exercises" }</Link></h3>
                        <p>{ "Broken swaps with a goal each: point at the line that leaks, or fix it. \
                              The page checks your work as you type." }</p>
                    </li>
                    <li class="card">
                        <h3><Link to={Route::Workshop}>{ "Run a workshop" }</Link></h3>
                        <p>{ "A 90-minute plan with speaker notes, short links and QR codes for every \
                              exercise, and a page that collects participants' receipts — no server." }</p>
                    </li>
                </ul>
            </section>
        </div>
    }
}
