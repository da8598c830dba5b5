/** /style.css of the demo site. */
export const STYLE = `
:root { --ink: #1d2b36; --sea: #1f5f7a; --sand: #f6f1e7; --line: #d9cfbd; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 Georgia, 'DejaVu Serif', serif; color: var(--ink); background: var(--sand); }
a { color: var(--sea); }
.masthead { display: flex; align-items: center; gap: 2rem; padding: .8rem 2rem; background: var(--sea); color: #fff; }
.masthead a { color: #fff; }
.brand { font-size: 1.5rem; font-weight: bold; text-decoration: none; letter-spacing: .02em; }
.masthead ul { display: flex; gap: 1.2rem; list-style: none; margin: 0; padding: 0; }
.masthead [aria-current] { text-decoration-thickness: 3px; }
.basket { margin-left: auto; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 2rem; }
h1 { font-size: 2rem; margin: .4rem 0 .8rem; }
.lead { font-size: 1.15rem; }
.search { display: flex; gap: .6rem; align-items: center; margin: 1.2rem 0; padding: .8rem 1rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
.search input { flex: 1; padding: .45rem .6rem; font: inherit; border: 1px solid var(--line); border-radius: 4px; }
button { padding: .45rem .9rem; font: inherit; color: #fff; background: var(--sea); border: 0; border-radius: 4px; cursor: pointer; }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 1rem; list-style: none; padding: 0; }
.cards li { padding: 1rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
table { width: 100%; border-collapse: collapse; background: #fff; margin: 1rem 0; }
caption { text-align: left; font-weight: bold; padding: .4rem 0; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.byline { color: #5b6a75; font-style: italic; }
footer { margin-top: 2rem; padding: 1.5rem 2rem; background: #e9e1d0; }
.newsletter { display: grid; grid-template-columns: max-content 1fr; gap: .5rem 1rem; max-width: 36rem; }
.newsletter h2, .newsletter p, .newsletter button { grid-column: 1 / -1; margin: 0; }
.newsletter button { justify-self: start; }
.newsletter input, .newsletter select { padding: .35rem .5rem; font: inherit; }
address { margin-top: 1rem; font-style: normal; color: #5b6a75; }
`;
