export type Theme = 'system' | 'light' | 'dark';
const KEY = 'taskboard.theme';

export function currentTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** The theme follows the system unless the person picked one (kept in this browser). */
export function applyTheme(theme: Theme = currentTheme()): void {
  if (theme === 'system') {
    localStorage.removeItem(KEY);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(KEY, theme);
    document.documentElement.dataset.theme = theme;
  }
}
