// Placeholder until the feature lands.
export default function RegisterPage() {
  return <main><h1>RegisterPage</h1></main>;
}
