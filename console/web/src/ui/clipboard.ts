// Text to the clipboard, with what to tell the user either way.
export async function copyText(text: string, what: string): Promise<{ ok: boolean; message: string }> {
  try {
    await navigator.clipboard.writeText(text);
    return { ok: true, message: `Copied ${what} to the clipboard.` };
  } catch (error) {
    const detail = error instanceof Error && error.message !== '' ? `: ${error.message}` : '';
    return { ok: false, message: `Could not copy ${what}${detail}` };
  }
}
