import { expect, test } from '@playwright/test';
import { screenFitIssues } from '../support/screen-fit.js';

/**
 * The screen checker itself, on pages made to break each rule once: a checker that finds nothing
 * wrong anywhere would let every screen spec pass.
 */

test.use({ viewport: { width: 390, height: 844 } });

const BAR = `<header class="top-bar" style="display:flex;width:390px;height:56px">
  <h1 style="margin:0"><span class="title">Session</span></h1></header>`;

test('finds a control too small to tap, two too close, and one without a name', async ({ page }) => {
  await page.setContent(`${BAR}
    <button style="position:absolute;left:10px;top:100px;width:20px;height:20px">Go</button>
    <button style="position:absolute;left:100px;top:100px;width:60px;height:48px">One</button>
    <button style="position:absolute;left:163px;top:100px;width:60px;height:48px">Two</button>
    <button style="position:absolute;left:10px;top:200px;width:48px;height:48px" aria-label=""></button>`);
  // Absolutely placed, each is a layer of its own: only size and name apply, and the pair shares none.
  const apart = await page.evaluate(screenFitIssues);
  expect(apart).toEqual(['button "Go" is 20.0×20.0, under 44×44', 'button "" has no name']);

  await page.setContent(`${BAR}
    <div><button style="width:60px;height:48px">One</button><button style="width:60px;height:48px;margin-left:3px">Two</button></div>`);
  expect(await page.evaluate(screenFitIssues)).toEqual([
    expect.stringMatching(/^button "One" at .* is 3\.0 px from button "Two" at /),
  ]);
});

test('finds a top bar whose title is missing, and a control over the first item of the transcript', async ({
  page,
}) => {
  await page.setContent(`<header class="top-bar" style="height:56px"><button style="width:48px;height:48px">Back</button></header>
    <div class="scroll" style="height:400px;overflow:auto"><div role="log" aria-label="Transcript">
      <div data-item-key="1" style="height:200px">First</div></div></div>
    <button style="position:fixed;left:0;top:60px;width:120px;height:48px">Jump</button>`);
  expect(await page.evaluate(screenFitIssues)).toEqual([
    'top bar: no title (h1 .title)',
    expect.stringMatching(/^transcript: button "Jump" at .* covers the first item at /),
  ]);
});
