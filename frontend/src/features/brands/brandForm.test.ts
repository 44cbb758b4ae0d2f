import { brandToForm, toBrandInput, validateBrandForm } from './brandForm';

describe('the brand form', () => {
  it('starts active for a new brand', () => {
    expect(brandToForm(null)).toEqual({ name: '', description: '', status: true });
  });

  it('needs a name and a description, blank counting as empty', () => {
    expect(validateBrandForm({ name: '  ', description: '', status: true })).toEqual({
      name: 'El nombre es requerido',
      description: 'La descripción es requerida',
    });
    expect(validateBrandForm({ name: 'Nokia', description: 'Teléfonos', status: false })).toEqual({});
  });

  it('saves trimmed text', () => {
    expect(toBrandInput({ name: ' Nokia ', description: ' Teléfonos ', status: false })).toEqual({
      name: 'Nokia',
      description: 'Teléfonos',
      status: false,
    });
  });
});
