param winCount int = 2

resource aks 'Microsoft.ContainerService/managedClusters@2024-05-01' = {
  name: 'hybrid'
  location: 'westeurope'
  properties: {
    agentPoolProfiles: [
      {
        name: 'system'
        count: 3
        vmSize: 'Standard_D2s_v3'
        osType: 'Linux'
        mode: 'System'
      }
      {
        name: 'win'
        count: winCount
        vmSize: 'Standard_D4s_v3'
        osType: 'Windows'
        osSKU: 'Windows2025'
        nodeTaints: [
          'os=windows:NoSchedule'
        ]
      }
    ]
    networkProfile: {
      networkPlugin: 'azure'
    }
  }
}
