/** Proofing: misspelled and repeated words of a text, and suggestions for a word; each call one proofing transaction. */
import type { IncorrectWord } from '../../proofing/spelling.js';
import type { JsonText } from '../../util/json.js';
import type { Row } from '../work.js';

export interface SpellCheckRequest {
  kind: 'spellCheck';
  text: string;
  language: string;
}

export interface SpellSuggestRequest {
  kind: 'spellSuggest';
  word: string;
  language: string;
  max: number;
}

// A proofing call counts one proofing transaction, once its language is known to exist.
export const spellCheck = {
  counted: false,
  slot: false,
  async run(request, { operations, ctx, countProofing }) {
    operations.dictionaryFor(request.language);
    await countProofing();
    return operations.spellCheck(request.text, request.language, ctx);
  },
} satisfies Row<SpellCheckRequest, JsonText<IncorrectWord[]>>;

export const spellSuggest = {
  counted: false,
  slot: false,
  async run(request, { operations, ctx, countProofing }) {
    operations.dictionaryFor(request.language);
    await countProofing();
    return operations.spellSuggest(request.word, request.language, request.max, ctx);
  },
} satisfies Row<SpellSuggestRequest, string[]>;
