export { cairnHome, loadSettings, SettingsError, settingsSchema, type Settings } from "./settings.js";
