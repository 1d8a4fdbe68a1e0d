import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unwrapHtmlText } from '../../src/convert/html.js';

describe('HTML output', () => {
  it('joins the lines the office wraps inside text, and leaves pre, script and markup alone', () => {
    const html =
      '<html><head><style>p {\n  margin: 0 }</style></head><body>\n<p class="x"\n   lang="en">Some\nAwesome\n  Facts here</p>\n<pre>keep\nthis</pre><p>one\r\ntwo</p></body></html>';
    assert.equal(
      unwrapHtmlText(html),
      '<html><head><style>p {\n  margin: 0 }</style></head><body>\n<p class="x"\n   lang="en">Some Awesome Facts here</p>\n<pre>keep\nthis</pre><p>one two</p></body></html>',
    );
  });
});
