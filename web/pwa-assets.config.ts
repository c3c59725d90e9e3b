/**
 * The app's icons, made from one SVG by @vite-pwa/assets-generator (`npm run icons -w web`): the
 * PNGs are committed, so a build needs no image library. The maskable icon keeps the mark inside
 * the safe zone on the brand colour; the others are the SVG as drawn.
 */
import { defineConfig, minimal2023Preset } from '@vite-pwa/assets-generator/config';

export default defineConfig({
  headLinkOptions: { preset: '2023' },
  preset: {
    ...minimal2023Preset,
    maskable: { ...minimal2023Preset.maskable, resizeOptions: { background: '#0b5cd5' } },
    apple: { ...minimal2023Preset.apple, resizeOptions: { background: '#0b5cd5' } },
  },
  images: ['public/icons/taskboard.svg'],
});
