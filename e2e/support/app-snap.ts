import type { Page, TestInfo } from '@playwright/test';

/** Saves a screenshot of the page as a test artifact (in the test's output folder, and attached). */
export async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}
