/**
 * The Harbor Books journal: the demo site's long-form content pages,
 * written for the demo.
 */

/** One journal article; `paragraphs` are plain text. */
export interface Article {
  slug: string;
  title: string;
  author: string;
  date: string;
  summary: string;
  paragraphs: string[];
}

export const ARTICLES: readonly Article[] = [
  {
    slug: 'why-we-shelve-by-hand',
    title: 'Why we still shelve by hand',
    author: 'Agnes Tregarthen, owner',
    date: '2026-03-14',
    summary: 'Every book that comes through the door passes through someone’s hands twice. Here is why we keep it that way.',
    paragraphs: [
      'People are sometimes surprised that a shop with a searchable catalogue still has someone walking the aisles every morning with a trolley. The catalogue tells us what we own. Only the shelves tell us what a customer will actually find.',
      'Shelving by hand is slow, and that is the point. Whoever puts a book away notices the spine that has cracked, the sailing manual that has drifted into poetry, the gap where three copies of a title used to be. Those small corrections are why a search on the website and a browse in the shop give the same answer.',
      'It is also how we learn our own stock. The staff who shelve the maritime history are the ones who can tell you, without looking anything up, which of the lighthouse books has the better maps. We would rather keep that knowledge in people than in a spreadsheet.',
      'So if you see the trolley in the Quay Street aisle before ten, say hello. It is the best time to ask what has just come in.',
    ],
  },
  {
    slug: 'notes-from-the-sorting-table',
    title: 'Notes from the sorting table',
    author: 'Tomasz Wren, secondhand buyer',
    date: '2026-05-02',
    summary: 'How secondhand books find their way to us, and what we look for when a box arrives.',
    paragraphs: [
      'Most of our secondhand stock arrives in boxes: house clearances, a sailing club emptying its library, a retired teacher making room. Each box is opened on the long table at the back of the shop, and each book gets the same three questions.',
      'Is it complete? We check for the maps, plates and fold-outs that older guides used to carry loose in a pocket. Is it clean enough to live next to a new book? A little foxing is history; damp is not. And will someone in this town want it? That last question is the hardest, and we get it wrong in both directions every month.',
      'Books that pass get a pencilled price on the first page and a stock code in the catalogue the same day, so they can be found online before they reach the shelf. Books that do not pass go to the free crate by the door, which is emptied by lunchtime more often than you would think.',
      'If you have a box of your own, bring it in on a weekday morning. We pay in cash or in credit, and credit goes a quarter further.',
    ],
  },
];
