const CHAPTERS = [
  'The lighthouse keeper counted the ships every evening, writing each one in a ledger that nobody else ever read.',
  'One night a ship came in with no name on its bow, and the keeper wrote a question mark where the name should be.',
  'The next morning the question mark had grown into a sentence, and the sentence asked him where he kept the spare lamps.',
  'He answered it in pencil, because ink felt too permanent for a conversation with a book.',
  'By the end of the week the ledger had opinions about the weather, the tides, and the way he stacked the firewood.',
  'He started leaving it open on the table at night, the way you leave a door ajar for a cat.',
  'In the winter storms the ledger kept him company, reading the ships back to him one by one, in order, without skipping any.',
  'When the supply boat finally came in spring, the keeper had nothing to report except that the lamps had never once gone out.',
];

/**
 * A long, fixed answer (about 4,500 characters, some 1,100 tokens): enough for several seconds of streaming, so
 * interrupting a run can be tried by hand, and large enough to push the demo's small window.
 */
export function longStory(): string {
  const rounds = 5;
  const paragraphs: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    paragraphs.push(`Part ${round} of ${rounds}. ${CHAPTERS.join(' ')}`);
  }
  return paragraphs.join('\n\n');
}
